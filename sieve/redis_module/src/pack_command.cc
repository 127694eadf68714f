#include "pack_command.h"

#include <string>
#include <string_view>

#include "batch_codec.h"

namespace crawlsieve_module {

int PackCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return api.WrongArity(ctx);
  const std::string element = crawlsieve_wire::PackBatch(View(argv[1]));
  return api.ReplyWithStringBuffer(ctx, element.data(), element.size());
}

int UnpackCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return api.WrongArity(ctx);
  std::string batch;
  if (!crawlsieve_wire::UnpackElement(View(argv[1]), batch)) {
    const std::string_view element = View(argv[1]);
    const std::string error =
        "ERR crawlsieve.unpack: not a packed queue batch (first byte " +
        (element.empty() ? std::string("none")
                         : std::to_string(static_cast<unsigned char>(element[0]))) +
        ", a packed batch starts with 5) or a damaged one";
    return api.ReplyWithError(ctx, error.c_str());
  }
  return api.ReplyWithStringBuffer(ctx, batch.data(), batch.size());
}

}  // namespace crawlsieve_module

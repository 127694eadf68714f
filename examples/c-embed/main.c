/* The crawler loop of examples/embed, in C, on the Sieve's C API
 * (sieve/sieve_c.h). The "web" is a function: page i links to pages 2i+1 and
 * 2i+2 (below 1000) and back to page 0. Each URL carries its depth as a
 * payload. Checkpoints half-way and reopens the checkpoint. Exits 0 only if
 * every page was visited exactly once at its right depth. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sieve/sieve_c.h"

static void Check(sieve_status status, const char* what) {
  if (status != SIEVE_OK) {
    fprintf(stderr, "c-embed: %s: %s: %s\n", what, sieve_status_name(status), sieve_last_error());
    exit(1);
  }
}

static void PushPage(sieve_t* sieve, int page, unsigned char depth) {
  char url[64];
  const int len = snprintf(url, sizeof url, "https://example.test/%d", page);
  Check(sieve_push(sieve, url, (size_t)len, &depth, 1, NULL), "push");
}

static int DepthOf(int page) {
  int depth = 0;
  for (; page > 0; page = (page - 1) / 2) ++depth;
  return depth;
}

/* Pops and handles pages until the crawl is complete or `budget` pages are
 * visited; returns the number visited. */
static int Crawl(sieve_t* sieve, int budget, int* visits) {
  int visited = 0;
  sieve_entry entry;
  while (visited < budget && sieve_pop(sieve, &entry) == SIEVE_OK) {
    const int page = atoi(strrchr(entry.url, '/') + 1);
    const unsigned char depth = *(const unsigned char*)entry.payload;
    if (depth != DepthOf(page)) {
      fprintf(stderr, "c-embed: page %d has depth %d, not %d\n", page, depth, DepthOf(page));
      exit(1);
    }
    ++visits[page];
    PushPage(sieve, 0, 0);
    if (2 * page + 1 < 1000) PushPage(sieve, 2 * page + 1, (unsigned char)(depth + 1));
    if (2 * page + 2 < 1000) PushPage(sieve, 2 * page + 2, (unsigned char)(depth + 1));
    Check(sieve_done(sieve, entry.url, entry.url_len), "done");
    sieve_entry_free(&entry);
    ++visited;
  }
  return visited;
}

int main(void) {
  static int visits[1000];
  sieve_options options;
  sieve_options_init(&options);
  options.expected_count = 10000;
  options.fp_rate = 1e-6;
  sieve_t* sieve = NULL;
  Check(sieve_create(&options, &sieve), "create");
  PushPage(sieve, 0, 0);
  Crawl(sieve, 500, visits);

  /* Checkpoint, drop the Sieve, reopen it: the crawl goes on where it was. */
  char dir[] = "/tmp/c-embed-XXXXXX";
  if (mkdtemp(dir) == NULL) return perror("mkdtemp"), 1;
  Check(sieve_save(sieve, dir), "save");
  sieve_free(sieve);
  sieve = NULL;
  Check(sieve_open(dir, NULL, &sieve), "open");
  Crawl(sieve, 1 << 30, visits);

  sieve_stats stats;
  sieve_get_stats(sieve, &stats, sizeof stats);
  sieve_free(sieve);
  char command[64];
  snprintf(command, sizeof command, "rm -rf %s", dir);
  if (system(command) != 0) return 1;

  int ok = stats.queued == 0 && stats.in_flight == 0 && stats.accepted == 1000;
  for (int page = 0; page < 1000; ++page) ok = ok && visits[page] == 1;
  printf("c-embed: visited %llu pages after a checkpoint, dropped %llu seen links: %s\n",
         (unsigned long long)stats.done, (unsigned long long)stats.dropped, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

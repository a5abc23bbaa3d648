//go:build linux && cgo

package storage

/*
#cgo LDFLAGS: -lpthread
#define WEIR_MALLOC_ARENAS 2
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// weir_limit_arenas runs when the program loads, before the Go runtime
// starts its threads: glibc fixes the number of arenas it may create
// when a second thread first allocates, so a later mallopt is too late.
__attribute__((constructor)) static void weir_limit_arenas(void) {
#ifdef M_ARENA_MAX
	if (getenv("MALLOC_ARENA_MAX") == NULL) mallopt(M_ARENA_MAX, WEIR_MALLOC_ARENAS);
#endif
}

static pthread_barrier_t weir_barrier;

static void *weir_alloc_thread(void *arg) {
	void *p = malloc(1024);
	pthread_barrier_wait(&weir_barrier);
	free(p);
	return NULL;
}

// weir_arenas starts n threads that each allocate while all are alive
// and returns how many arenas malloc_info then reports, or -1.
static int weir_arenas(int n) {
#ifdef M_ARENA_MAX
	pthread_t t[64];
	if (n > 64) n = 64;
	pthread_barrier_init(&weir_barrier, NULL, n);
	for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, weir_alloc_thread, NULL);
	for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
	pthread_barrier_destroy(&weir_barrier);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) return -1;
	int rc = malloc_info(0, f);
	fclose(f);
	int count = 0;
	for (char *p = buf; rc == 0 && (p = strstr(p, "<heap nr=")) != NULL; p++) count++;
	free(buf);
	return rc == 0 ? count : -1;
#else
	return -1;
#endif
}
*/
import "C"

// mallocArenas is the most arenas glibc's malloc keeps, unless the
// environment's MALLOC_ARENA_MAX says otherwise (WEIR_MALLOC_ARENAS,
// set by weir_limit_arenas when the program loads).
//
// Pebble allocates its block cache and memtables with C's malloc, from
// any of the Go runtime's threads. glibc gives each thread an arena of
// its own, up to eight per core, and an arena keeps what is freed in
// it for its threads: the block cache's blocks, freed on one thread and
// allocated on another, left the resident set 90 MiB and more above
// the cache's 64 MiB it then had (docs/memory.md).
const mallocArenas = C.WEIR_MALLOC_ARENAS

// cArenas starts n C threads that allocate at once and returns how many
// arenas glibc's malloc then has, or -1 if it cannot tell.
func cArenas(n int) int { return int(C.weir_arenas(C.int(n))) }

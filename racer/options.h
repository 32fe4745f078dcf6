/* The racer's command line (options.c). */
#ifndef RACER_OPTIONS_H
#define RACER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "racer/util.h" /* PROGRAM */

enum command {
	CMD_RACE,
	CMD_LIST_WORKERS,
	CMD_CACHE, /* sudoku-race cache stats|clear|export|import */
};

struct options {
	enum command command;
	char **worker_lists; /* --workers, as given (may repeat) */
	int nworker_lists;
	double timeout_s;    /* 0: none */
	double grace_s;
	double hello_timeout_s;
	bool progress, stats, json, pretty;
	bool stats_json;     /* --stats=json */
	bool verbose;        /* --progress off a terminal: the workers' reports too */
	bool quiet;          /* no warnings */
	long count;          /* --count=K: solutions to look for (0: no counting) */
	long progress_ms;    /* --progress-ms: the plain lines' period */
	bool seed_set;
	uint64_t seed;
	const char *cache_dir; /* --cache DIR */
	bool no_cache;
	bool no_bulk;          /* --no-bulk: solves as lines only (PROTOCOL.md 13) */
	size_t cache_size;   /* --cache-size, bytes; 0: CACHE_SIZE_DEFAULT */
	bool cache_trust;    /* cache import --trust */
	bool cache_required; /* --cache-required, or redis://...?required=1: no cache, no run */
	int jobs;            /* -j: presolver processes; 0: the processors */
	bool schedule_all;   /* --schedule=all: every puzzle to every entry at once */
	const char *presolver; /* --presolver: the entry that gets every puzzle first */
	double budget_s;     /* --budget: fixed; 0: learned */
	long line_offset;    /* --line-offset: the input's lines are numbered from this + 1 */
	int shards;          /* --shards: 0 the default (shard.h), 1 none */
	off_t range_from, range_to; /* --byte-range; -1: none, to the end */
	char **args;         /* input files, or the cache subcommand and its arguments */
	int option_words;    /* argv[1] up to this: the options (in getopt's order, no closing --) */
	int nargs;
};

/* --shards' most */
#define MAX_SHARDS 64

extern struct options opt;

void options_parse(int argc, char **argv);
void options_free(void);

#endif

/* sudoku-rate: the program around rater.c. Reads puzzles as the workers
 * do (any notation, files or standard input), rates each, and writes one
 * line per puzzle, in order: the level and the hardest technique, or a
 * line starting with '#' that says why there is no rating (no solution,
 * several: the rater's search follows every branch, and where it stops at
 * its bound sudoku-cp's search, in process, counts); --json an object a
 * line instead. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/answer.h"
#include "lib/common.h"
#include "lib/files.h"
#include "lib/number.h"
#include "lib/puzzle_stream.h"
#include "rater.h"
#include "solver.h"
#include "workers/line_reader.h"

static struct {
	bool json;
	bool guesses_set;
	uint64_t max_guesses;
} opt;

static const char *input_name; /* NULL: standard input */
static int exit_status;

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: %s [OPTION]... [FILE]...\n"
		"Rates Sudoku puzzles by the techniques a person needs to solve them. Reads\n"
		"puzzles from the FILEs (or standard input, also for '-'), in any notation the\n"
		"solvers read, and writes one line per puzzle, in order: its level on the scale\n"
		"below, and the hardest technique used, e.g. 'intermediate 3/6: hidden pair';\n"
		"or a line starting with '#' that says why there is none (# invalid: ...,\n"
		"# unsat: ..., # multiple solutions: ..., # timeout: ...). Grids of box size\n"
		"2 to 8.\n"
		"\n"
		"The scale (the techniques are tried easiest first, after every step again):\n"
		"  1 simple:        naked singles only\n"
		"  2 easy:          hidden singles\n"
		"  3 intermediate:  locked candidates (pointing, claiming), naked and hidden\n"
		"                   pairs\n"
		"  4 hard:          naked and hidden triples and quads, X-wing, XY-wing,\n"
		"                   swordfish, jellyfish\n"
		"  5 expert:        the techniques run out: a guess, each of whose values\n"
		"                   they settle\n"
		"  6 extreme:       guesses within guesses\n"
		"Levels 1 to 3 are qqwing's simple, easy and intermediate; qqwing calls 4 to 6\n"
		"expert.\n"
		"\n"
		"Options:\n"
		"      --json             a JSON object per puzzle instead (keys: line, file,\n"
		"                         puzzle, status, reason, level, rank, hardest,\n"
		"                         hardest_logic, guesses, depth, givens, uses)\n"
		"      --max-guesses=N    stop guessing after N guesses: extreme, 'over N'\n"
		"                         when the puzzle is known to have one solution, else\n"
		"                         '# timeout' (default 10000 for 9x9, fewer for larger\n"
		"                         grids, 10000 x 81 / cells; 0: no bound)\n"
		"  -h, --help             show this help and exit\n"
		"  -V, --version          show the version and exit\n"
		"\n"
		"Exit status: 0 when every puzzle was rated, 1 when any was not (invalid, no\n"
		"solution, several, undecided), 2 for usage or system errors.\n",
		program);
}

/* A JSON string, written by the answer codec's writer (valid UTF-8
 * always, as every JSON line of the project). */
static void json_string(const char *s)
{
	static struct answer_buf jb;
	jb.len = 0;
	answer_write_json_string(&jb, s);
	fwrite(jb.p, 1, jb.len, stdout);
}

/* The start of a JSON line: line, file, puzzle (NULL: none). */
static void json_head(long line, const struct grid *puzzle, const struct notation *nt)
{
	printf("{\"line\":%ld", line);
	if (input_name) {
		fputs(",\"file\":", stdout);
		json_string(input_name);
	}
	fputs(",\"puzzle\":", stdout);
	if (puzzle) {
		static char text[GRID_MAX_CELLS * 3 + 1]; /* grid_format_max of the largest */
		if (grid_format(puzzle, nt, text, sizeof text) >= 0)
			json_string(text);
		else
			fputs("null", stdout);
	} else {
		fputs("null", stdout);
	}
}

/* A puzzle without a rating: '# WORD: REASON', or its JSON. */
static void unrated(long line, const struct grid *puzzle, const struct notation *nt, const char *word,
		    const char *reason)
{
	exit_status = 1;
	if (!opt.json) {
		printf("# %s: %s%s%s\n", word, input_name ? input_name : "", input_name ? ": " : "", reason);
		return;
	}
	json_head(line, puzzle, nt);
	printf(",\"status\":");
	json_string(word);
	printf(",\"reason\":");
	json_string(reason);
	puts("}");
}

static void rated(long line, const struct grid *puzzle, const struct notation *nt, const struct rating *r)
{
	char hardest[160];
	if (r->hardest != TECH_GUESS) {
		snprintf(hardest, sizeof hardest, "%s", rate_technique_name(r->hardest));
	} else {
		char before[64] = "";
		if (r->hardest_logic != TECH_COUNT)
			snprintf(before, sizeof before, "; before them: %s", rate_technique_name(r->hardest_logic));
		char depth[32] = "";
		if (r->depth > 1)
			snprintf(depth, sizeof depth, ", %d deep", r->depth);
		snprintf(hardest, sizeof hardest, "guess (%s%ld guess%s%s%s)", r->bounded ? "over " : "",
			 r->uses[TECH_GUESS], r->uses[TECH_GUESS] == 1 ? "" : "es", depth, before);
	}
	if (!opt.json) {
		printf("%s %d/6: %s\n", rate_level_name(r->level), r->level, hardest);
		return;
	}
	json_head(line, puzzle, nt);
	printf(",\"status\":\"rated\",\"reason\":null,\"level\":\"%s\",\"rank\":%d,\"hardest\":\"%s\"",
	       rate_level_name(r->level), r->level, rate_technique_name(r->hardest));
	printf(",\"hardest_logic\":\"%s\",\"guesses\":%ld,\"depth\":%d,\"bounded\":%s",
	       rate_technique_name(r->hardest_logic), r->uses[TECH_GUESS], r->depth,
	       r->bounded ? "true" : "false");
	printf(",\"givens\":%d,\"uses\":{", puzzle->cells - grid_count_blanks(puzzle));
	bool first = true;
	for (int t = 0; t < TECH_GUESS; t++)
		if (r->uses[t]) {
			printf("%s\"%s\":%ld", first ? "" : ",", rate_technique_name((enum technique)t), r->uses[t]);
			first = false;
		}
	puts("}}");
}

static void rate_one(const struct stream_item *item)
{
	static struct rating rating;
	char err[GRID_ERR_MAX], why[GRID_ERR_MAX + 64];
	const struct grid *g = &item->grid;
	if (grid_check_givens(g, err, sizeof err) < 0) {
		snprintf(why, sizeof why, "line %ld: %s", item->line, err);
		unrated(item->line, g, &item->notation, "unsat", why);
		return;
	}
	/* one solution? sudoku-cp's search (in process) answers most puzzles
	 * within a bound; the rater's own search, which follows every branch,
	 * answers the rest, unless it stops at its own bound */
	int n = solver_count(g, 2, 20000, NULL);
	if (n == 0 || n == 2) {
		snprintf(why, sizeof why, "line %ld: %s", item->line, n == 0 ? "no solution" : "not rated");
		unrated(item->line, g, &item->notation, n == 0 ? "unsat" : "multiple solutions", why);
		return;
	}
	uint64_t bound = opt.guesses_set ? opt.max_guesses : rate_default_guesses(g->cells);
	struct rate_options ro = {.max_level = LEVEL_EXTREME, .max_guesses = bound};
	int rc = rate_puzzle(g, &ro, &rating);
	if (rc == 0 && rating.bounded && n != 1) {
		snprintf(why, sizeof why,
			 "line %ld: not rated: no proof of one solution within %llu guesses (--max-guesses)",
			 item->line, (unsigned long long)bound);
		unrated(item->line, g, &item->notation, "timeout", why);
		return;
	}
	if (rc != 0) {
		n = rc == -2 ? -1 : rating.solutions;
		snprintf(why, sizeof why, "line %ld: %s", item->line,
			 n == 0 ? "no solution" : n > 1 ? "not rated" : "out of memory");
		unrated(item->line, g, &item->notation, n == 0 ? "unsat" : n > 1 ? "multiple solutions" : "error",
			why);
		return;
	}
	rated(item->line, g, &item->notation, &rating);
}

static void take(enum stream_event ev, const struct stream_item *item)
{
	if (ev == STREAM_INVALID)
		unrated(item->line, NULL, &item->notation, "invalid", item->error);
	else if (ev == STREAM_PUZZLE)
		rate_one(item);
}

/* Rates the puzzles of one input (name NULL: standard input); -1 on a
 * read error. */
static int rate_input(int fd, const char *name)
{
	input_name = name;
	struct line_reader lr;
	static struct puzzle_stream ps;
	static struct stream_item item;
	if (line_reader_init(&lr, fd, PUZZLE_LINE_MAX) < 0) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(2);
	}
	puzzle_stream_init(&ps);
	int rc = 0;
	for (;;) {
		/* about to wait for input: the answers so far go out */
		if (!line_reader_buffered(&lr))
			fflush(stdout);
		char *line;
		size_t len;
		bool again;
		enum line_status st = line_reader_next(&lr, &line, &len);
		if (st == LINE_ERROR) {
			fprintf(stderr, "%s: %s: %s\n", program, input_name ? input_name : "standard input",
				strerror(errno));
			rc = -1;
			break;
		}
		if (st == LINE_EOF) {
			take(puzzle_stream_finish(&ps, &item), &item);
			break;
		}
		if (st == LINE_OVERLONG) {
			take(puzzle_stream_overlong(&ps, lr.lineno, &item, &again), &item);
		} else {
			do
				take(puzzle_stream_feed(&ps, line, len, lr.lineno, &item, &again), &item);
			while (again);
		}
	}
	line_reader_free(&lr);
	return rc;
}

int main(int argc, char **argv)
{
	common_set_program("sudoku-rate");
	enum { OPT_JSON = 256, OPT_MAX_GUESSES };
	static const struct option longs[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"max-guesses", required_argument, NULL, OPT_MAX_GUESSES},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	for (int c; (c = getopt_long(argc, argv, "hV", longs, NULL)) != -1;) {
		switch (c) {
		case OPT_JSON:
			opt.json = true;
			break;
		case OPT_MAX_GUESSES:
			if (parse_seed(optarg, &opt.max_guesses) != PARSE_OK) {
				fprintf(stderr, "%s: --max-guesses: '%s' is not a whole number\n", program, optarg);
				return 2;
			}
			opt.guesses_set = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			usage_try_help();
		}
	}
	int status = files_read_each(argc, argv, optind, rate_input);
	if (files_finish_stdout() != 0)
		return 2;
	return status ? status : exit_status;
}

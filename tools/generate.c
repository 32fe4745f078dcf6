/* sudoku-generate: the program around generator.c (unique puzzles) and
 * instance.c (benchmark instances): options, the random streams, output.
 * Puzzles go out one a line as they are made, in the notation of the
 * protocol ('.' blanks; numbers a line from 36x36 up). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fullgrid.h"
#include "generator.h"
#include "instance.h"
#include "lib/common.h"
#include "lib/number.h"
#include "lib/grid.h"

static const char *const symmetry_names[SYM_COUNT] = {
	"none", "rotate180", "rotate90", "mirror", "flip", "diagonal", "random",
};

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: %s [OPTION]...\n"
		"Writes Sudoku puzzles with exactly one solution, one a line ('.' for a blank;\n"
		"from 36x36 up, numbers with 0 for a blank): a random full grid, then givens\n"
		"taken away while a complete solver proves the solution still unique.\n"
		"The same seed and options give the same puzzles.\n"
		"\n"
		"Options:\n"
		"  -b, --box=N            box size 2-8: 2 makes 4x4 puzzles, 3 9x9 (the\n"
		"                         default), 4 16x16, 5 25x25\n"
		"  -n, --number=N         puzzles to write (default 1)\n"
		"  -s, --seed=N           seed of the random numbers (default: from the clock)\n"
		"  -y, --symmetry=S       the givens' symmetry: none (the default), rotate180,\n"
		"                         rotate90, mirror (left-right), flip (top-bottom),\n"
		"                         diagonal, or random (one of these but none, drawn\n"
		"                         per puzzle)\n"
		"  -d, --difficulty=L     only puzzles of level L: simple, easy, intermediate,\n"
		"                         hard, expert or extreme, as sudoku-rate says; or any\n"
		"                         (the default)\n"
		"      --attempts=N       puzzles made for a difficulty before giving up on it\n"
		"                         (default 1000): a '# no ... puzzle' line then\n"
		"      --max-nodes=N      bound of each proof by search that a given can go, in\n"
		"                         nodes: a given whose removal takes longer to prove\n"
		"                         stays (default 100000 up to 9x9, 1000 for 16x16,\n"
		"                         100 above; 0: no bound)\n"
		"      --instance         benchmark instances instead: a random full grid with\n"
		"                         a fraction of its cells kept, most of them with many\n"
		"                         solutions, after a header line naming the command\n"
		"  -k, --keep=F           the fraction of cells an instance keeps, 0-1 (default\n"
		"                         0.45; implies --instance): 1 prints the full grids,\n"
		"                         the solutions of the puzzles the same seed and\n"
		"                         number make at any other fraction; a higher fraction\n"
		"                         keeps the same givens and more\n"
		"  -h, --help             show this help and exit\n"
		"  -V, --version          show the version and exit\n"
		"\n"
		"Exit status: 0 when every puzzle was written, 1 when a difficulty was not met\n"
		"within the attempts, 2 for usage or system errors.\n",
		program);
}

static double decimal(const char *name, const char *s, double min, double max)
{
	double v;
	if (parse_decimal(s, min, max, &v) != PARSE_OK)
		die("--%s: '%s' is not a number from %g to %g", name, s, min, max);
	return v;
}

static unsigned long long whole(const char *name, const char *s, unsigned long long min,
				unsigned long long max)
{
	uint64_t v;
	if (parse_seed(s, &v) != PARSE_OK || v < min || v > max)
		die("--%s: '%s' is not a whole number from %llu to %llu", name, s, min, max);
	return v;
}

static int choice(const char *name, const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	char list[256] = "";
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
	die("--%s: '%s' is not one of %s", name, s, list);
}

static void put(const struct grid *g, const struct notation *nt, char *buf, size_t bufsz)
{
	grid_format(g, nt, buf, bufsz);
	puts(buf);
}

/* The benchmark instances: the starts of every puzzle draw from one stream
 * and the rest from a second that begins where the first would end, as
 * the first generator drew them (all the starts, then the solver, then
 * the rest), so that a seed still makes the same instances. */
static int instances(int box, double keep, long number, unsigned long long seed, const struct notation *nt,
		     char *buf, size_t bufsz)
{
	struct grid *g = grid_new(box);
	struct rng starts, shuffles;
	rng_seed(&starts, seed);
	shuffles = starts;
	for (long i = 0; i < number * fullgrid_start_draws(box); i++)
		rng_next(&shuffles);
	printf("# %ld puzzles %dx%d, %.0f%% of the cells kept: sudoku-generate --box=%d --keep=%g"
	       " --number=%ld --seed=%llu\n",
	       number, box * box, box * box, keep * 100, box, keep, number, seed);
	for (long i = 0; i < number; i++) {
		if (fullgrid_make(&starts, &shuffles, box, g) < 0)
			die("out of memory");
		instance_keep(&shuffles, g, (int)(keep * g->cells + 0.5));
		put(g, nt, buf, bufsz);
	}
	free(g);
	return 0;
}

static int unique_puzzles(const struct generator_request *rq, long number, unsigned long long seed,
			  const struct notation *nt, char *buf, size_t bufsz)
{
	struct grid *g = grid_new(rq->box);
	struct generator_result res;
	struct rng r;
	int status = 0;
	rng_seed(&r, seed);
	for (long i = 0; i < number; i++) {
		switch (generator_make(rq, &r, g, &res)) {
		case 0:
			put(g, nt, buf, bufsz);
			break;
		case 1:
			printf("# no %s puzzle in %ld attempts (the last was %s)\n", rate_level_name(rq->level),
			       res.attempts, rate_level_name(res.rating.level));
			status = 1;
			break;
		default:
			die("out of memory");
		}
		/* each puzzle as soon as it is made: they can take seconds */
		if (fflush(stdout) != 0)
			break;
	}
	free(g);
	return status;
}

int main(int argc, char **argv)
{
	common_set_program("sudoku-generate");
	struct generator_request rq = {
		.box = 3, .symmetry = SYM_NONE, .level = LEVEL_NONE, .attempts = 1000,
	};
	long number = 1;
	double keep = 0.45;
	bool instance = false, seeded = false, bounded = false;
	unsigned long long seed = 0;
	enum { OPT_ATTEMPTS = 256, OPT_MAX_NODES, OPT_INSTANCE };
	static const struct option longs[] = {
		{"box", required_argument, NULL, 'b'},
		{"number", required_argument, NULL, 'n'},
		{"count", required_argument, NULL, 'n'}, /* the first generator's name */
		{"seed", required_argument, NULL, 's'},
		{"symmetry", required_argument, NULL, 'y'},
		{"difficulty", required_argument, NULL, 'd'},
		{"attempts", required_argument, NULL, OPT_ATTEMPTS},
		{"max-nodes", required_argument, NULL, OPT_MAX_NODES},
		{"instance", no_argument, NULL, OPT_INSTANCE},
		{"keep", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static const char *const levels[] = {
		"any", "simple", "easy", "intermediate", "hard", "expert", "extreme",
	};
	for (int c; (c = getopt_long(argc, argv, "b:n:s:y:d:k:hV", longs, NULL)) != -1;) {
		switch (c) {
		case 'b':
			rq.box = (int)whole("box", optarg, GRID_MIN_BOX, GRID_MAX_BOX);
			break;
		case 'n':
			number = (long)whole("number", optarg, 1, 1000000000);
			break;
		case 's':
			seed = whole("seed", optarg, 0, ~0ULL);
			seeded = true;
			break;
		case 'y':
			rq.symmetry = (enum symmetry)choice("symmetry", optarg, symmetry_names, SYM_COUNT);
			break;
		case 'd':
			rq.level = choice("difficulty", optarg, levels, LEVEL_COUNT);
			break;
		case OPT_ATTEMPTS:
			rq.attempts = (long)whole("attempts", optarg, 1, 1000000000);
			break;
		case OPT_MAX_NODES:
			rq.max_nodes = whole("max-nodes", optarg, 0, ~0ULL);
			bounded = true;
			break;
		case OPT_INSTANCE:
			instance = true;
			break;
		case 'k':
			keep = decimal("keep", optarg, 0, 1);
			instance = true;
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
	if (optind < argc)
		die("unexpected argument '%s' (see --help)", argv[optind]);
	if (instance && (rq.symmetry != SYM_NONE || rq.level != LEVEL_NONE))
		die("--instance makes benchmark instances: no --symmetry or --difficulty");
	if (!bounded)
		rq.max_nodes = rq.box <= 3 ? 100000 : rq.box == 4 ? 1000 : 100;
	if (!seeded) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000000007ULL ^ (unsigned long long)ts.tv_nsec ^
		       (unsigned long long)getpid() << 32;
	}

	struct notation nt;
	notation_default(&nt, rq.box * rq.box);
	size_t bufsz = grid_format_max(rq.box * rq.box);
	char *buf = malloc(bufsz);
	if (!buf)
		die("out of memory");
	int status = instance ? instances(rq.box, keep, number, seed, &nt, buf, bufsz)
			      : unique_puzzles(&rq, number, seed, &nt, buf, bufsz);
	free(buf);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno));
	return status;
}

/* sudoku-generate: benchmark and test puzzles of any box size, made like the
 * "general instances" of Lloyd & Amos (seeds/ant-colony-bve.txt, section
 * 4): a random full grid, then a fraction of its cells kept at random.
 *
 * The full grid: the boxes on the main diagonal share no row, column or
 * box, so each is filled with a random permutation; a complete solver
 * (sudoku-cp by default, fast on such open grids) fills the rest. Then the
 * grid's symmetries are drawn at random (values relabelled, bands, rows in
 * a band, stacks, columns in a stack shuffled, a transposition), so that
 * the solver's own preferences leave no pattern. The same seed and options
 * give the same puzzles. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/common.h"
#include "lib/grid.h"
#include "lib/number.h"
#include "workers/rng.h"

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: %s [OPTION]...\n"
		"Writes random puzzles, one a line: a random full grid, random symmetries,\n"
		"then a fraction of the cells kept. The same options, the same puzzles.\n\n"
		"  -b, --box=N        box size 2-8: 6 makes 36x36 grids (default 6)\n"
		"  -k, --keep=F       fraction of the cells kept as givens, 0-1 (default 0.45);\n"
		"                     1 prints the full grids, the solutions of the puzzles\n"
		"                     the same seed and count make at any other fraction;\n"
		"                     a higher fraction keeps the same givens and more\n"
		"  -n, --count=K      puzzles to write (default 10)\n"
		"  -s, --seed=N       seed of the random numbers (default 1)\n"
		"      --solver=CMD   complete solver that fills the grids, run as a filter\n"
		"                     on a file (default sudoku-cp)\n"
		"  -h, --help         show this help and exit\n",
		program);
}

static double number(const char *name, const char *s, double min, double max)
{
	double v;
	if (parse_decimal(s, min, max, &v) != PARSE_OK)
		die("--%s: '%s' is not a number from %g to %g", name, s, min, max);
	return v;
}

static int whole(const char *name, const char *s, int min, int max)
{
	long long v;
	if (parse_whole(s, min, max, &v) != PARSE_OK)
		die("--%s: '%s' is not a whole number from %d to %d", name, s, min, max);
	return (int)v;
}

/* A uniform integer in [0, n). */
static int below(struct rng *r, int n)
{
	return (int)(rng_next(r) % (uint64_t)n);
}

static void shuffle(struct rng *r, int *a, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = below(r, i + 1), t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* The diagonal boxes filled at random, the rest blank. */
static void diagonal_start(struct rng *r, int box, struct grid *g)
{
	int perm[GRID_MAX_SIDE];
	grid_init(g, box);
	for (int k = 0; k < box; k++) {
		for (int v = 0; v < g->side; v++)
			perm[v] = v + 1;
		shuffle(r, perm, g->side);
		for (int i = 0; i < g->side; i++) {
			int row = k * box + i / box, col = k * box + i % box;
			g->cell[row * g->side + col] = (uint8_t)perm[i];
		}
	}
}

/* A random order of 0..side-1 that keeps bands (or stacks) whole. */
static void band_order(struct rng *r, int box, int *order)
{
	int bands[GRID_MAX_BOX], within[GRID_MAX_BOX];
	for (int b = 0; b < box; b++)
		bands[b] = b;
	shuffle(r, bands, box);
	for (int b = 0; b < box; b++) {
		for (int i = 0; i < box; i++)
			within[i] = i;
		shuffle(r, within, box);
		for (int i = 0; i < box; i++)
			order[b * box + i] = bands[b] * box + within[i];
	}
}

/* g under random symmetries: the result is again a valid full grid. */
static void random_symmetry(struct rng *r, const struct grid *g, struct grid *out)
{
	int rows[GRID_MAX_SIDE], cols[GRID_MAX_SIDE], label[GRID_MAX_SIDE + 1];
	const int side = g->side;
	band_order(r, g->box, rows);
	band_order(r, g->box, cols);
	label[0] = 0;
	for (int v = 1; v <= side; v++)
		label[v] = v;
	shuffle(r, label + 1, side);
	bool transpose = rng_next(r) & 1;
	grid_init(out, g->box);
	for (int row = 0; row < side; row++)
		for (int col = 0; col < side; col++) {
			int src = transpose ? cols[col] * side + rows[row] : rows[row] * side + cols[col];
			out->cell[row * side + col] = (uint8_t)label[g->cell[src]];
		}
}

/* Blanks all but keep cells of g, chosen at random. The shuffle runs even
 * when every cell is kept, so that every fraction draws the same numbers:
 * --keep=1 prints the solutions of that seed's puzzles, and a higher
 * fraction keeps the same cells and more (the same puzzles, made easier). */
static void keep_cells(struct rng *r, struct grid *g, int keep)
{
	static int order[GRID_MAX_CELLS];
	for (int i = 0; i < g->cells; i++)
		order[i] = i;
	shuffle(r, order, g->cells);
	for (int i = keep; i < g->cells; i++)
		g->cell[order[i]] = 0;
}

int main(int argc, char **argv)
{
	common_set_program("sudoku-generate");
	int box = 6, count = 10;
	double keep = 0.45;
	uint64_t seed = 1;
	const char *solver = "sudoku-cp";
	static const struct option longs[] = {
		{"box", required_argument, NULL, 'b'},   {"keep", required_argument, NULL, 'k'},
		{"count", required_argument, NULL, 'n'}, {"seed", required_argument, NULL, 's'},
		{"solver", required_argument, NULL, 'S'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	for (int c; (c = getopt_long(argc, argv, "b:k:n:s:h", longs, NULL)) != -1;) {
		switch (c) {
		case 'b':
			box = whole("box", optarg, GRID_MIN_BOX, GRID_MAX_BOX);
			break;
		case 'k':
			keep = number("keep", optarg, 0, 1);
			break;
		case 'n':
			count = whole("count", optarg, 1, 1000000);
			break;
		case 's':
			if (parse_seed(optarg, &seed) != PARSE_OK)
				die("--seed: '%s' is not a number from 0 to 2^64-1", optarg);
			break;
		case 'S':
			solver = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);

	/* the starts, to a file the solver reads */
	struct rng r;
	rng_seed(&r, seed);
	static struct grid g, full;
	struct notation nt;
	notation_default(&nt, box * box); /* characters up to 25x25, numbers above */
	size_t bufsz = grid_format_max(box * box);
	char *buf = xmalloc(bufsz);
	char starts[] = "/tmp/sudoku-generate.XXXXXX";
	int fd = mkstemp(starts);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		die("cannot make a temporary file: %s", strerror(errno));
	for (int i = 0; i < count; i++) {
		diagonal_start(&r, box, &g);
		grid_format(&g, &nt, buf, bufsz);
		fprintf(f, "%s\n", buf);
	}
	if (fclose(f) != 0)
		die("cannot write a temporary file: %s", strerror(errno));

	/* the solver's full grids, under symmetries, thinned */
	char *cmd = xmalloc(strlen(solver) + sizeof starts + 8);
	sprintf(cmd, "%s %s", solver, starts);
	FILE *solved = popen(cmd, "r");
	if (!solved)
		die("cannot run the solver: %s", strerror(errno));
	printf("# %d puzzles %dx%d, %.0f%% of the cells kept: sudoku-generate --box=%d --keep=%g"
	       " --count=%d --seed=%llu\n",
	       count, box * box, box * box, keep * 100, box, keep, count, (unsigned long long)seed);
	char *line = NULL;
	size_t cap = 0;
	int made = 0;
	ssize_t len;
	while (made < count && (len = getline(&line, &cap, solved)) > 0) {
		char err[GRID_ERR_MAX];
		struct notation read_nt;
		if (grid_parse(line, (size_t)len, &full, &read_nt, err, sizeof err) < 0 ||
		    full.box != box || grid_count_blanks(&full) != 0) {
			unlink(starts);
			die("the solver did not fill a grid: %.60s", line);
		}
		random_symmetry(&r, &full, &g);
		keep_cells(&r, &g, (int)(keep * g.cells + 0.5));
		grid_format(&g, &nt, buf, bufsz);
		printf("%s\n", buf);
		made++;
	}
	int status = pclose(solved);
	unlink(starts);
	free(line);
	free(buf);
	free(cmd);
	if (made < count || status != 0) {
		fprintf(stderr, "%s: the solver (%s) filled %d of %d grids\n", program, solver, made,
			count);
		return 1;
	}
	return 0;
}

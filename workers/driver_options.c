/* The worker's command line: the driver's options, the algorithm's own
 * (worker.h's worker_option tables), --help and --version. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "lib/number.h"
#include "lib/wrap.h"

/* --- options --- */

enum {
	OPT_PROTOCOL = 256,
	OPT_PRETTY,
	OPT_PROGRESS_MS,
	OPT_BATCH,
	OPT_TIMING,
	OPT_JSON,
	OPT_ALGO_BASE = 1000, /* algorithm option i is OPT_ALGO_BASE + 2i (+1: --no-) */
};

static void format_option_default(const struct worker_option *o, char *buf, size_t bufsz)
{
	buf[0] = '\0';
	switch (o->type) {
	case OPT_INT:
		snprintf(buf, bufsz, "(default %d)", *(int *)o->value);
		break;
	case OPT_DOUBLE:
		snprintf(buf, bufsz, "(default %g)", *(double *)o->value);
		break;
	case OPT_FLAG:
		snprintf(buf, bufsz, "(default %s)", *(bool *)o->value ? "on" : "off");
		break;
	case OPT_CHOICE: {
		int idx = *(int *)o->value;
		const char *p = o->choices;
		for (int i = 0; i < idx && p; i++) {
			p = strchr(p, '|');
			if (p)
				p++;
		}
		if (p)
			snprintf(buf, bufsz, "(default %.*s)",
				 (int)(strchr(p, '|') ? strchr(p, '|') - p : (long)strlen(p)), p);
		break;
	}
	}
}

/* where an option's help starts: after "  --name=VALUE" in 22 and a space */
#define OPTION_COLUMN 25

static void print_help(void)
{
	const bool complete = ALGO.kind == WORKER_COMPLETE;
	printf("Usage: %s [OPTION]... [FILE]...\n", program);
	print_wrapped(stdout, ALGO.summary, (struct wrap){0});
	char source[512];
	snprintf(source, sizeof source, "Follows %s.", ALGO.source);
	print_wrapped(stdout, source, (struct wrap){.indent = 2});
	printf("\nReads puzzles from the FILEs (or standard input, also for '-') and writes\n"
	       "one line per puzzle, in order: the solution in the puzzle's own notation, or a\n"
	       "line starting with '#' that says why there is none (# invalid: ..., # unsat,\n"
	       "# timeout after ..., # gave up ..., # multiple solutions). Grids of box size\n"
	       "%d to %d (%dx%d to %dx%d).\n\n",
	       ALGO.min_box, ALGO.max_box, ALGO.min_box * ALGO.min_box, ALGO.min_box * ALGO.min_box,
	       ALGO.max_box * ALGO.max_box, ALGO.max_box * ALGO.max_box);
	printf("Options:\n");
	if (complete)
		printf("  -c, --count[=K]        count solutions up to K (default 2): a unique one is\n"
		       "                         printed, else '# unsat' or '# multiple solutions: ...'\n");
	printf("  -t, --time-limit=SECS  give up on a puzzle after SECS seconds (default: none)\n"
	       "      --timeout=SECS     the same (sudoku-race's name for it)\n"
	       "  -s, --seed=N           seed of the random numbers: the same seed, the same run\n"
	       "  -p, --progress         report the search's progress on standard error\n"
	       "      --progress-ms=MS   at most one progress report every MS ms (default %ld)\n"
	       "      --pretty           print solutions as boxed grids\n"
	       "      --json             a JSON object per puzzle instead (sudoku-race --json's\n"
	       "                         keys: line, file, puzzle, status, solution, reason,\n"
	       "                         unique, winner, worker_ms, ms)\n"
	       "      --protocol         speak the racer's line protocol on stdin/stdout\n"
	       "                         (see PROTOCOL.md) instead of filtering\n",
	       opt.progress_ms);
	if (ALGO.solve_batch)
		printf("      --batch=N          solve up to N puzzles at once (default %d)\n"
		       "      --timing           report each launch, and at the end each stage's\n"
		       "                         share of the wall time, on standard error\n",
		       ALGO.batch_max);
	printf("  -h, --help             show this help and exit\n"
	       "  -V, --version          show the version and exit\n");
	if (ALGO.options && ALGO.options[0].name) {
		printf("\n%s options:\n", ALGO.name);
		for (const struct worker_option *o = ALGO.options; o->name; o++) {
			char left[64];
			switch (o->type) {
			case OPT_FLAG:
				snprintf(left, sizeof left, "--[no-]%s", o->name);
				break;
			case OPT_CHOICE:
				snprintf(left, sizeof left, "--%s=%s", o->name, o->choices);
				break;
			case OPT_INT:
				snprintf(left, sizeof left, "--%s=N", o->name);
				break;
			case OPT_DOUBLE:
				snprintf(left, sizeof left, "--%s=X", o->name);
				break;
			}
			/* the default after the help, or on a line of its own
			 * when the help ends with one (a list) */
			char text[1024], dflt[128];
			format_option_default(o, dflt, sizeof dflt);
			size_t n = strlen(o->help);
			snprintf(text, sizeof text, "  %-22s %s%s%s", left, o->help,
				 n && o->help[n - 1] == '\n' ? "" : " ", dflt);
			print_wrapped(stdout, text, (struct wrap){.indent = OPTION_COLUMN, .hang = 2});
		}
	}
	printf("\nExit status: 0 when every puzzle was solved, 1 when any was not, 2 for usage\n"
	       "or system errors.\n");
}

static double parse_number(const char *name, const char *s, double min, double max)
{
	double v;
	int rc = parse_decimal(s, min, max, &v);
	if (rc == PARSE_SYNTAX)
		usage_error("--%s: '%s' is not a number", name, s);
	if (rc == PARSE_RANGE)
		usage_error("--%s: %s is out of range (%g to %g)", name, s, min, max);
	return v;
}

/* name: the option as it was given (an old spelling names itself in a
 * usage error). */
static void set_algo_option(const struct worker_option *o, const char *name, const char *arg, bool negate)
{
	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->value = !negate;
		break;
	case OPT_INT: {
		double v = parse_number(name, arg, o->min, o->max);
		if (v != floor(v))
			usage_error("--%s: '%s' is not a whole number", name, arg);
		*(int *)o->value = (int)v;
		break;
	}
	case OPT_DOUBLE:
		*(double *)o->value = parse_number(name, arg, o->min, o->max);
		break;
	case OPT_CHOICE: {
		/* an old spelling of a choice reads as the new one */
		const char *old_values = NULL;
		for (const struct worker_option_alias *al = ALGO.aliases; al && al->option; al++)
			if (strcmp(al->option, o->name) == 0)
				old_values = al->old_values;
		for (const char *a = old_values; a && *a;) {
			const char *eq = strchr(a, '='), *end = strchr(a, ',');
			if (!end)
				end = a + strlen(a);
			if (eq && eq < end && (size_t)(eq - a) == strlen(arg) && strncmp(a, arg, (size_t)(eq - a)) == 0) {
				static char now[64];
				snprintf(now, sizeof now, "%.*s", (int)(end - eq - 1), eq + 1);
				arg = now;
				break;
			}
			a = *end ? end + 1 : end;
		}
		const char *p = o->choices;
		size_t n = strlen(arg);
		for (int i = 0; p; i++) {
			const char *bar = strchr(p, '|');
			size_t len = bar ? (size_t)(bar - p) : strlen(p);
			if (len == n && strncmp(p, arg, n) == 0) {
				*(int *)o->value = i;
				return;
			}
			p = bar ? bar + 1 : NULL;
		}
		usage_error("--%s: '%s' is not one of %s", name, arg, o->choices);
	}
	}
}

int parse_options(int argc, char **argv)
{
	static const struct option common[] = {
		{"count", optional_argument, NULL, 'c'},
		{"time-limit", required_argument, NULL, 't'},
		{"timeout", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 's'},
		{"progress", no_argument, NULL, 'p'},
		{"progress-ms", required_argument, NULL, OPT_PROGRESS_MS},
		{"pretty", no_argument, NULL, OPT_PRETTY},
		{"protocol", no_argument, NULL, OPT_PROTOCOL},
		{"batch", required_argument, NULL, OPT_BATCH},
		{"timing", no_argument, NULL, OPT_TIMING},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
	};
	const size_t ncommon = sizeof common / sizeof common[0];
	size_t nalgo = 0;
	while (ALGO.options && ALGO.options[nalgo].name)
		nalgo++;
	/* static: --help, --version and usage errors exit inside the loop, and
	 * memory still reachable at exit is not reported as a leak */
	static struct option *longopts;
	static char (*negated)[64];
	longopts = xcalloc(ncommon + 3 * nalgo + 1, sizeof *longopts);
	negated = xcalloc(nalgo + 1, sizeof *negated);
	memcpy(longopts, common, sizeof common);
	size_t k = ncommon;
	for (size_t i = 0; i < nalgo; i++) {
		const struct worker_option *o = &ALGO.options[i];
		longopts[k++] = (struct option){o->name, o->type == OPT_FLAG ? no_argument : required_argument,
						NULL, OPT_ALGO_BASE + 2 * (int)i};
		for (const struct worker_option_alias *a = ALGO.aliases; a && a->option; a++)
			if (strcmp(a->option, o->name) == 0 && a->alias)
				longopts[k++] = (struct option){a->alias,
								o->type == OPT_FLAG ? no_argument : required_argument,
								NULL, OPT_ALGO_BASE + 2 * (int)i};
		if (o->type == OPT_FLAG) {
			snprintf(negated[i], sizeof negated[i], "no-%s", o->name);
			longopts[k++] = (struct option){negated[i], no_argument, NULL,
							OPT_ALGO_BASE + 2 * (int)i + 1};
		}
	}
	bool count_set = false;
	int c;
	opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	opt.batch = ALGO.batch_max > 0 ? ALGO.batch_max : 1;
	int at = -1;
	while ((c = getopt_long(argc, argv, "c::t:s:phV", longopts, &at)) != -1) {
		switch (c) {
		case 'c':
			count_set = true;
			opt.count_limit = optarg ? (long)parse_number("count", optarg, 2, 1e15) : 2;
			break;
		case 't':
			opt.time_limit = parse_number("time-limit", optarg, 0, 1e9);
			break;
		case 's':
			if (parse_seed(optarg, &opt.seed) != PARSE_OK)
				usage_error("--seed: '%s' is not a number from 0 to 2^64-1", optarg);
			break;
		case 'p':
			opt.progress = true;
			break;
		case OPT_PROGRESS_MS:
			opt.progress_ms = (long)parse_number("progress-ms", optarg, 10, 3600000);
			break;
		case OPT_PRETTY:
			opt.pretty = true;
			break;
		case OPT_PROTOCOL:
			opt.protocol = true;
			break;
		case OPT_BATCH:
			opt.batch = (int)parse_number("batch", optarg, 1, 1 << 20);
			break;
		case OPT_JSON:
			opt.json = true;
			break;
		case OPT_TIMING:
			if (!ALGO.solve_batch)
				usage_error("--timing is for workers that solve batches");
			opt.timing = true;
			break;
		case 'h':
			print_help();
			exit(0);
		case 'V':
			print_version();
			exit(0);
		case '?':
			usage_try_help();
		default: {
			/* at: the long option matched (its spelling for messages) */
			int i = (c - OPT_ALGO_BASE) / 2;
			const char *given = at >= 0 ? longopts[at].name : ALGO.options[i].name;
			set_algo_option(&ALGO.options[i], given, optarg, (c - OPT_ALGO_BASE) % 2);
		}
		}
	}
	free(longopts);
	free(negated);
	longopts = NULL;
	negated = NULL;
	if (count_set && ALGO.kind != WORKER_COMPLETE)
		usage_error("--count needs a complete worker; %s is stochastic", ALGO.name);
	if (opt.json && (opt.protocol || opt.pretty))
		usage_error("--json goes with neither --protocol nor --pretty");
	if (opt.protocol && optind < argc)
		usage_error("--protocol reads standard input: no FILE arguments");
	return optind;
}


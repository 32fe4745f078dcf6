/* The racer's command line. */
#include "config.h"

#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/number.h"
#include "racer/options.h"
#include "racer/redis_url.h"
#include "racer/cache_where.h"
#include "racer/util.h"
#include "racer/workers.h"

struct options opt = {.grace_s = 0.2, .hello_timeout_s = 10, .progress_ms = 3000, .range_from = -1, .range_to = -1};

/* --count's most, as the workers take it */
#define COUNT_MAX 1000000000000000LL

enum {
	OPT_LIST_WORKERS = 256,
	OPT_GRACE,
	OPT_HELLO_TIMEOUT,
	OPT_STATS,
	OPT_JSON,
	OPT_PRETTY,
	OPT_CACHE,
	OPT_NO_CACHE,
	OPT_NO_BULK,
	OPT_SCHEDULE,
	OPT_PRESOLVER,
	OPT_BUDGET,
	OPT_PROGRESS_MS,
	OPT_LINE_OFFSET,
	OPT_SHARDS,
	OPT_BYTE_RANGE,
	OPT_CACHE_SIZE,
	OPT_TRUST,
	OPT_CACHE_REQUIRED,
};

static void print_help(void)
{
	printf("Usage: %s [OPTION]... [FILE]...\n"
	       "       %s [--cache DIR|URL] cache stats|clear|export|import [FILE]...\n"
	       "Races Sudoku puzzles (4x4 to 64x64) through a portfolio of worker programs\n"
	       "(sudoku-cp, sudoku-sat, ...): each puzzle goes first to the presolver of its\n"
	       "size alone (sudoku-cp up to 16x16, sudoku-sat from 25x25); when it has not\n"
	       "answered within a budget learned from the run's own solve times (4 times\n"
	       "their 95th percentile, at least 10 ms for 9x9), the rest of the portfolio\n"
	       "joins. The first answer that verifies wins, the others are stopped.\n"
	       "Results are cached.\n\n",
	       PROGRAM, PROGRAM);
	printf("Reads puzzles from the FILEs (or standard input, also for '-') and writes\n"
	       "one line per puzzle, in input order, in the puzzle's own notation: the solution,\n"
	       "or a line starting with '#' that says why there is none (# invalid: line N: ...,\n"
	       "# unsat, # unsolved, # timeout after N s, # multiple solutions).\n\n");
	printf("Options:\n"
	       "  -w, --workers=LIST     the portfolio: worker names separated by commas, each\n"
	       "                         with options as NAME:KEY=VALUE:... (passed as\n"
	       "                         --KEY=VALUE), e.g. 'cp,dlx,acs:seed=7'; a name may\n"
	       "                         repeat. A NAME is the program sudoku-NAME beside\n"
	       "                         %s (or on the PATH), or a program on the PATH,\n"
	       "                         or a path. Default: every worker found among\n"
	       "                         %s",
	       PROGRAM, default_worker_names[0]);
	/* the list, broken after a comma where it would pass column 80 */
	int col = 25 + (int)strlen(default_worker_names[0]);
	for (int i = 1; default_worker_names[i]; i++) {
		char entry[128];
		default_entry(i, entry, sizeof entry);
		if (col + 1 + (int)strlen(entry) > 79) {
			printf(",\n%25s%s", "", entry);
			col = 25 + (int)strlen(entry);
		} else {
			printf(",%s", entry);
			col += 1 + (int)strlen(entry);
		}
	}
	printf("\n"
	       "      --list-workers     show the workers found: kind, sizes, device, status\n"
	       "  -j, --jobs=N           up to N processes of the presolver (default: the\n"
	       "                         number of processors; with --count, of its\n"
	       "                         confirmer too), N/4 (at least 1) of each other\n"
	       "                         worker, one GPU worker; each started when needed\n"
	       "                         (presolver processes double once those running\n"
	       "                         were busy for twice a start's time)\n"
	       "      --schedule=WHEN    staged (default): the presolver first, the others\n"
	       "                         after its budget; all: every worker at once\n"
	       "      --budget=SECS      the presolver's time alone on a puzzle, fixed\n"
	       "                         (default: learned per size from the run's times)\n"
	       "      --presolver=NAME   the entry of --workers that gets every puzzle first\n"
	       "                         (default: cp up to 16x16, sat above, when found)\n"
	       "  -t, --timeout=SECS, --time-limit=SECS\n"
	       "                         give up on a puzzle after SECS seconds of racing\n"
	       "      --grace=SECS       time a worker has to acknowledge a cancel before it is\n"
	       "                         killed and restarted (default 0.2; '150ms' also works;\n"
	       "                         longer for one that was slow to acknowledge lately)\n"
	       "      --hello-timeout=SECS  time a worker has to say hello after it starts,\n"
	       "                         before it is killed and started again (default 10: a\n"
	       "                         GPU worker starting CUDA beside others takes seconds)\n"
	       "      --no-bulk          send every puzzle to the workers as a line, never in\n"
	       "                         the bulk frames of those that take them\n"
	       "  -c, --count[=K]        count solutions up to K (default 2) with the complete\n"
	       "                         workers: a unique one is printed, else '# unsat' or\n"
	       "                         '# multiple solutions: N' (N = K: 'at least K')\n"
	       "  -s, --seed=N           the seed every worker uses (unless its entry sets one)\n"
	       "  -p, --progress         show the race on standard error: on a terminal a\n"
	       "                         display sized to it (done/total, rate, ETA, wins\n"
	       "                         per worker, the busy processes); else a line every\n"
	       "                         few seconds; a summary at the end\n"
	       "      --progress-ms=MS   off a terminal, at most one progress line every MS ms\n"
	       "                         (default 3000)\n"
	       "  -v, --verbose          with --progress off a terminal, the workers' own\n"
	       "                         progress reports too (one a worker each 0.5 s)\n"
	       "  -q, --quiet            no warnings (a worker left out, a bad cache entry):\n"
	       "                         errors only\n"
	       "      --stats[=FORMAT]   at the end, print counts per worker on standard error:\n"
	       "                         as tables (text, the default) or a JSON object (json)\n"
	       "      --json             one JSON object per puzzle instead of the answer line\n"
	       "                         (--list-workers and cache stats: their JSON forms)\n"
	       "      --pretty           print solutions as boxed grids\n"
	       "      --line-offset=N    number the input's lines from N+1 in messages, '#'\n"
	       "                         lines and --json: a block of a larger input (GNU\n"
	       "                         parallel --pipe -N L: N is L times the block's\n"
	       "                         number less one; contrib/many-machines.sh)\n"
	       "      --shards=N         race the input in about N parts, each by a\n"
	       "                         sudoku-race of its own with its share of -j, the\n"
	       "                         answers merged in input order: a big file cut, small\n"
	       "                         files together (default: -j/4 parts of at least 1 MB\n"
	       "                         when the input is regular files and neither\n"
	       "                         --progress nor --stats is given; 1: never)\n"
	       "      --byte-range=FROM-TO  read only bytes FROM to TO (not included) of the\n"
	       "                         one input file, FROM at a line's start; TO may be\n"
	       "                         left out (to the end): how --shards cuts a file\n"
	       "      --cache=DIR|URL    the result cache: a directory, or a Redis server that\n"
	       "                         racers on many machines share, where none solves a\n"
	       "                         puzzle another one is solving:\n"
	       "                         redis://[[USER:]PASSWORD@]HOST[:PORT][/DB]\n"
	       "                         [?required=1] (the password percent-encoded; else\n"
	       "                         $REDISCLI_AUTH's) (default $SUDOKU_RACE_CACHE,\n"
	       "                         else $XDG_CACHE_HOME/sudoku-race, else\n"
	       "                         ~/.cache/sudoku-race)\n"
	       "      --cache-required   a cache that cannot be used (a server that cannot be\n"
	       "                         reached or refuses the password, a store that cannot\n"
	       "                         be opened) is an error before the first puzzle\n"
	       "                         (exit 2), not a warning and a run without it\n"
	       "      --cache-size=SIZE  the most the cache file takes: bytes, or with K, M or\n"
	       "                         G (default 1G; least 256K); least recently used\n"
	       "                         entries make room\n"
	       "      --no-cache         do not use the cache\n"
	       "  -h, --help             show this help and exit\n"
	       "  -V, --version          show the version and exit\n\n");
	printf("Cache commands:\n"
	       "  cache stats            what the cache holds\n"
	       "  cache clear            empty it\n"
	       "  cache export           write every entry as a text line, after a header line\n"
	       "  cache import [--trust] [FILE]...\n"
	       "                         read such lines into the cache: solutions are verified,\n"
	       "                         unsat and uniqueness re-proved by sudoku-cp (or the\n"
	       "                         claim dropped) unless --trust\n"
	       "(A redis:// cache takes stats and clear.)\n\n");
	printf("Workers are looked for beside %s, in ../workers and ../cuda from it\n"
	       "(the build tree), then on the PATH. (A puzzle file named 'cache' must be given\n"
	       "as ./cache.)\n\n"
	       "Exit status: 0 when every puzzle was solved, 1 when any was not, 2 for usage\n"
	       "or system errors, 128+N after signal N (130: SIGINT, 143: SIGTERM).\n",
	       PROGRAM);
}

/* SECS: a number of seconds, or with a unit: 1.5s, 200ms. */
static double parse_seconds(const char *name, const char *s, double min)
{
	size_t len = strlen(s), unit = 0;
	if (len >= 2 && strcmp(s + len - 2, "ms") == 0)
		unit = 2;
	else if (len >= 1 && s[len - 1] == 's')
		unit = 1;
	double v;
	if (parse_decimal_n(s, len - unit, -DBL_MAX, DBL_MAX, &v) != PARSE_OK)
		usage_error("--%s: '%s' is not a number of seconds", name, s);
	if (unit == 2)
		v /= 1000.0;
	if (v < min || v > 1e7)
		usage_error("--%s: %s is out of range", name, s);
	return v;
}

/* --byte-range=FROM-TO, TO optional */
static void parse_byte_range(const char *s)
{
	const char *dash = strchr(s, '-');
	long long from, to = -1;
	if (!dash || parse_whole_n(s, (size_t)(dash - s), 0, LLONG_MAX / 2, &from) != PARSE_OK ||
	    (dash[1] && parse_whole(dash + 1, 0, LLONG_MAX / 2, &to) != PARSE_OK))
		usage_error("--byte-range: '%s' is not FROM-TO (bytes)", s);
	if (to >= 0 && to < from)
		usage_error("--byte-range: %s ends before it starts", s);
	opt.range_from = (off_t)from;
	opt.range_to = (off_t)to;
}

/* --count=K: as the workers take it (workers/driver.c), K from 2: the
 * protocol's count=K asks for up to K solutions. */
static long parse_count(const char *s)
{
	long long v;
	if (parse_whole(s, 2, COUNT_MAX, &v) != PARSE_OK)
		usage_error("--count: '%s' is not a number from 2 to %lld", s, (long long)COUNT_MAX);
	return (long)v;
}

/* --cache, else SUDOKU_RACE_CACHE: a directory, or a redis:// URL that
 * must be one (a usage error otherwise, also without Redis support). A URL
 * of any other scheme is refused, never taken for a directory. */
static void check_cache_location(void)
{
	const char *from = "--cache";
	if (!opt.cache_dir && !opt.no_cache) {
		const char *env = getenv("SUDOKU_RACE_CACHE");
		if (env && env[0]) {
			opt.cache_dir = env;
			from = "SUDOKU_RACE_CACHE";
		}
	}
	char scheme[64], shown[1024], err[512];
	if (!store_url_scheme(opt.cache_dir, scheme, sizeof scheme))
		return;
	redis_url_shown(opt.cache_dir, shown, sizeof shown);
	if (!store_is_url(opt.cache_dir))
		usage_error("%s: '%s': the scheme '%s' is not supported: a cache is a directory or a "
			    "redis:// URL%s",
			    from, shown, scheme,
			    strcasecmp(scheme, "rediss") == 0 ? " (for TLS, a tunnel: see docs/cache.md)" : "");
	struct redis_url u;
	if (redis_url_parse(opt.cache_dir, &u, err, sizeof err) < 0)
		usage_error("%s: '%s': %s", from, shown, err);
	if (u.required)
		opt.cache_required = true;
}

void options_parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"workers", required_argument, NULL, 'w'},
		{"list-workers", no_argument, NULL, OPT_LIST_WORKERS},
		{"jobs", required_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 't'},
		{"time-limit", required_argument, NULL, 't'},
		{"grace", required_argument, NULL, OPT_GRACE},
		{"hello-timeout", required_argument, NULL, OPT_HELLO_TIMEOUT},
		{"count", optional_argument, NULL, 'c'},
		{"seed", required_argument, NULL, 's'},
		{"progress", no_argument, NULL, 'p'},
		{"progress-ms", required_argument, NULL, OPT_PROGRESS_MS},
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{"stats", optional_argument, NULL, OPT_STATS},
		{"json", no_argument, NULL, OPT_JSON},
		{"pretty", no_argument, NULL, OPT_PRETTY},
		{"cache", required_argument, NULL, OPT_CACHE},
		{"no-cache", no_argument, NULL, OPT_NO_CACHE},
		{"no-bulk", no_argument, NULL, OPT_NO_BULK},
		{"cache-size", required_argument, NULL, OPT_CACHE_SIZE},
		{"trust", no_argument, NULL, OPT_TRUST},
		{"cache-required", no_argument, NULL, OPT_CACHE_REQUIRED},
		{"schedule", required_argument, NULL, OPT_SCHEDULE},
		{"presolver", required_argument, NULL, OPT_PRESOLVER},
		{"budget", required_argument, NULL, OPT_BUDGET},
		{"line-offset", required_argument, NULL, OPT_LINE_OFFSET},
		{"shards", required_argument, NULL, OPT_SHARDS},
		{"byte-range", required_argument, NULL, OPT_BYTE_RANGE},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	const char *last_arg = NULL;
	while ((c = getopt_long(argc, argv, "w:j:t:c::s:pvqhV", longopts, NULL)) != -1) {
		last_arg = optarg;
		switch (c) {
		case 'w':
			opt.worker_lists = realloc(opt.worker_lists,
						   (size_t)(opt.nworker_lists + 1) * sizeof *opt.worker_lists);
			if (!opt.worker_lists)
				die("out of memory");
			opt.worker_lists[opt.nworker_lists++] = optarg;
			break;
		case OPT_LIST_WORKERS:
			opt.command = CMD_LIST_WORKERS;
			break;
		case 'j': {
			long long v;
			if (parse_whole(optarg, 1, MAX_JOBS, &v) != PARSE_OK)
				usage_error("--jobs: '%s' is not a number from 1 to %d", optarg, MAX_JOBS);
			opt.jobs = (int)v;
			break;
		}
		case 't':
			/* --time-limit is the workers' name for it */
			opt.timeout_s = parse_seconds("timeout", optarg, 0.001);
			break;
		case OPT_GRACE:
			opt.grace_s = parse_seconds("grace", optarg, 0);
			break;
		case OPT_HELLO_TIMEOUT:
			opt.hello_timeout_s = parse_seconds("hello-timeout", optarg, 0.001);
			break;
		case 'c':
			opt.count = optarg ? parse_count(optarg) : 2;
			break;
		case 's':
			if (parse_seed(optarg, &opt.seed) != PARSE_OK)
				usage_error("--seed: '%s' is not a number from 0 to 2^64-1", optarg);
			opt.seed_set = true;
			break;
		case 'p':
			opt.progress = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case OPT_PROGRESS_MS: {
			long long v;
			if (parse_whole(optarg, 1, 86400000, &v) != PARSE_OK)
				usage_error("--progress-ms: '%s' is not a number of ms from 1 to 86400000", optarg);
			opt.progress_ms = (long)v;
			break;
		}
		case OPT_STATS:
			opt.stats = true;
			if (optarg && strcmp(optarg, "json") == 0)
				opt.stats_json = true;
			else if (optarg && strcmp(optarg, "text") != 0)
				usage_error("--stats: '%s' is not a format (text or json)", optarg);
			break;
		case OPT_JSON:
			opt.json = true;
			break;
		case OPT_PRETTY:
			opt.pretty = true;
			break;
		case OPT_CACHE:
			if (!optarg[0])
				usage_error("--cache: an empty directory name or URL");
			opt.cache_dir = optarg;
			break;
		case OPT_CACHE_SIZE:
			if (cache_parse_size(optarg, &opt.cache_size) < 0)
				usage_error("--cache-size: '%s' is not a size from 256K (K, M, G: x1024)", optarg);
			break;
		case OPT_TRUST: /* cache import --trust */
			opt.cache_trust = true;
			break;
		case OPT_NO_BULK:
			opt.no_bulk = true;
			break;
		case OPT_NO_CACHE:
			opt.no_cache = true;
			break;
		case OPT_CACHE_REQUIRED:
			opt.cache_required = true;
			break;
		case OPT_SCHEDULE:
			if (strcmp(optarg, "staged") == 0)
				opt.schedule_all = false;
			else if (strcmp(optarg, "all") == 0)
				opt.schedule_all = true;
			else
				usage_error("--schedule: '%s' is neither staged nor all", optarg);
			break;
		case OPT_BUDGET:
			opt.budget_s = parse_seconds("budget", optarg, 0.001);
			break;
		case OPT_LINE_OFFSET: {
			long long v;
			if (parse_whole(optarg, 0, LONG_MAX / 2, &v) != PARSE_OK)
				usage_error("--line-offset: '%s' is not a number of lines", optarg);
			opt.line_offset = (long)v;
			break;
		}
		case OPT_SHARDS: {
			long long v;
			if (parse_whole(optarg, 1, MAX_SHARDS, &v) != PARSE_OK)
				usage_error("--shards: '%s' is not a number from 1 to %d", optarg, MAX_SHARDS);
			opt.shards = (int)v;
			break;
		}
		case OPT_BYTE_RANGE:
			parse_byte_range(optarg);
			break;
		case OPT_PRESOLVER:
			if (!optarg[0])
				usage_error("--presolver: an empty name");
			opt.presolver = optarg;
			break;
		case 'h':
			print_help();
			exit(0);
		case 'V':
			print_version();
			exit(0);
		default:
			usage_try_help();
		}
	}
	opt.args = argv + optind;
	/* a "--" before the operands ends the options, unless it was the
	 * last option's argument (-w --) */
	opt.option_words = optind;
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0 && argv[optind - 1] != last_arg)
		opt.option_words--;
	opt.nargs = argc - optind;
	if (opt.nargs > 0 && strcmp(opt.args[0], "cache") == 0) {
		if (opt.command == CMD_LIST_WORKERS)
			usage_error("--list-workers and the cache command do not go together");
		opt.command = CMD_CACHE;
	}
	if (opt.cache_dir && opt.no_cache)
		usage_error("--cache and --no-cache do not go together");
	if (opt.cache_required && opt.no_cache)
		usage_error("--cache-required and --no-cache do not go together");
	check_cache_location();
	if ((opt.presolver || opt.budget_s > 0) && opt.schedule_all)
		usage_error("--presolver and --budget do not go with --schedule=all");
	if (opt.json && opt.pretty)
		usage_error("--json and --pretty do not go together");
	if (opt.cache_trust && (opt.command != CMD_CACHE || opt.nargs < 2 || strcmp(opt.args[1], "import") != 0))
		usage_error("--trust goes with cache import only");
	if (opt.command == CMD_CACHE && opt.no_cache)
		usage_error("the cache command needs the cache (drop --no-cache)");
	if (opt.command == CMD_LIST_WORKERS && opt.nargs > 0)
		usage_error("--list-workers takes no FILE");
	if (opt.shards > 1 && (opt.progress || opt.stats))
		usage_error("--shards does not go with --%s (each part would show its own)",
			    opt.progress ? "progress" : "stats");
	if (opt.range_from >= 0 && opt.nargs > 1)
		usage_error("--byte-range reads one FILE, not %d", opt.nargs);
}

void options_free(void)
{
	free(opt.worker_lists);
	opt.worker_lists = NULL;
	opt.nworker_lists = 0;
}

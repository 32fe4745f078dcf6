/* sudoku-race cache stats|clear|export|import.
 *
 * export writes a header line, then one line per entry; import reads such
 * lines, so caches of several machines can be merged:
 *   # sudoku-race cache v2
 *   PUZZLE ANSWER [winner=NAME] [ms=T] [unique=yes|no|unknown] [provers=A,B] [version=V]
 * PUZZLE and ANSWER are grids in the protocol's one-word notation
 * (PROTOCOL.md 3); ANSWER is the solution or the word unsat. A file without
 * the header is read as sudoku-race 0.1 wrote it (version 1: no provers=);
 * another version is refused.
 *
 * import trusts nothing in the file: solutions are verified against the
 * rules and the givens, and unsat and unique= claims are proved again by a
 * complete worker (sudoku-cp --count=2) or dropped, unless --trust. An
 * entry already stored stays when it knows as much (cache_keep_stored).
 * The store itself is read and written by the cache's helper processes
 * (cache.c), sudoku-cp runs through spawn.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/answer.h"
#include "racer/jsonw.h"
#include "racer/racer.h"
#include "racer/cache.h"
#include "racer/spawn.h"
#include "racer/stats.h"

#define EXPORT_VERSION 2
#define EXPORT_HEADER "# sudoku-race cache v"
/* seconds sudoku-cp has to prove a claim */
#define PROOF_LIMIT_S 10

static void usage(void) __attribute__((noreturn));
static void usage(void)
{
	fprintf(stderr, "%s: usage: %s [--cache DIR] cache stats|clear|export|import [--trust] [FILE]...\n",
		PROGRAM, PROGRAM);
	exit(2);
}

static bool exists(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0;
}

/* A store to read: its data file is there (the commands that only read
 * open it read-only, and create nothing). */
static bool store_exists(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	return exists(path);
}

static int open_or_fail(const char *dir, bool readonly)
{
	char err[9000];
	if (cache_open(dir, readonly, err, sizeof err) < 0) {
		fprintf(stderr, "%s: cache: %s\n", PROGRAM, err);
		return -1;
	}
	return 0;
}

static const char *uniq_word(enum uniqueness u)
{
	return u == UNIQ_UNIQUE ? "yes" : u == UNIQ_MULTIPLE ? "no" : "unknown";
}

/* --- stats --- */

struct winner_count {
	char name[17];
	long n;
};

struct tally {
	long entries, solved, unique, several, unsat, bad, newer, proved;
	struct winner_count winners[64];
	int nwinners;
};

static void count_entry(const struct grid *puzzle, const struct cache_entry *e, int status, void *arg)
{
	(void)puzzle;
	struct tally *t = arg;
	t->entries++;
	if (status <= 0) {
		t->newer += status == 0;
		t->bad += status < 0;
		return;
	}
	if (e->verdict == V_UNSAT) {
		t->unsat++;
	} else {
		t->solved++;
		t->unique += e->uniq == UNIQ_UNIQUE;
		t->several += e->uniq == UNIQ_MULTIPLE;
	}
	t->proved += e->provers[0] != '\0';
	int i;
	for (i = 0; i < t->nwinners && strcmp(t->winners[i].name, e->winner) != 0; i++)
		;
	if (i == t->nwinners && t->nwinners < 64) {
		snprintf(t->winners[i].name, sizeof t->winners[i].name, "%s", e->winner);
		t->winners[t->nwinners++].n = 0;
	}
	if (i < t->nwinners)
		t->winners[i].n++;
}

/* cache stats --json: the same on one line. */
static void stats_json(const char *dir, bool exists, const struct tally *t, long long size, size_t cap)
{
	struct jsonw w = {0};
	jsonw_begin(&w, '{');
	jsonw_key(&w, "cache");
	jsonw_str(&w, dir);
	jsonw_key(&w, "exists");
	jsonw_bool(&w, exists);
	static const char *const keys[] = {"entries", "solved", "unique", "several", "unsat", "proved",
					   "unreadable", "newer"};
	const long v[] = {t->entries, t->solved, t->unique, t->several, t->unsat, t->proved, t->bad, t->newer};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		jsonw_key(&w, keys[i]);
		jsonw_long(&w, v[i]);
	}
	jsonw_key(&w, "bytes");
	jsonw_long(&w, (long)size);
	jsonw_key(&w, "limit");
	jsonw_long(&w, (long)cap);
	jsonw_key(&w, "found_by");
	jsonw_begin(&w, '{');
	for (int i = 0; i < t->nwinners; i++) {
		jsonw_key(&w, t->winners[i].name[0] ? t->winners[i].name : "?");
		jsonw_long(&w, t->winners[i].n);
	}
	jsonw_end(&w, '}');
	jsonw_end(&w, '}');
	jsonw_flush(&w, stdout);
	jsonw_free(&w);
}

static int cmd_stats(const char *dir)
{
	if (!store_exists(dir)) {
		static const struct tally none;
		if (opt.json)
			stats_json(dir, false, &none, 0, 0);
		else
			printf("cache: %s (not created yet)\nentries: 0\n", dir);
		return 0;
	}
	if (open_or_fail(dir, true) < 0)
		return 2;
	static struct tally t;
	char err[9000];
	int rc = cache_each(count_entry, &t, err, sizeof err);
	size_t cap = cache_limit();
	cache_close();
	if (rc < 0) {
		fprintf(stderr, "%s: cache: %s\n", PROGRAM, err);
		return 2;
	}
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	long long size = stat(path, &st) == 0 ? (long long)st.st_size : 0;
	if (opt.json) {
		stats_json(dir, true, &t, size, cap);
		return 0;
	}
	printf("cache: %s\n", dir);
	printf("entries: %ld (%ld solved: %ld known unique, %ld with several solutions, %ld not "
	       "checked; %ld unsat; %ld with their provers",
	       t.entries, t.solved, t.unique, t.several, t.solved - t.unique - t.several, t.unsat, t.proved);
	if (t.bad)
		printf("; %ld unreadable", t.bad);
	if (t.newer)
		printf("; %ld from a newer racer", t.newer);
	printf(")\nsize: %lld bytes on disk, at most %zu (--cache-size)\n", size, cap);
	if (t.nwinners) {
		printf("found by:");
		for (int i = 0; i < t.nwinners; i++)
			printf(" %s %ld%s", t.winners[i].name[0] ? t.winners[i].name : "?", t.winners[i].n,
			       i + 1 < t.nwinners ? "," : "");
		printf("\n");
	}
	return 0;
}

/* --- clear --- */

static int cmd_clear(const char *dir)
{
	if (!exists(dir)) {
		printf("cache: %s: nothing to clear\n", dir);
		return 0;
	}
	size_t entries;
	char msg[9000];
	int rc = cache_clear(dir, &entries, msg, sizeof msg);
	if (rc < 0) {
		fprintf(stderr, "%s: cache: %s\n", PROGRAM, msg);
		return 2;
	}
	if (rc > 0)
		printf("cache: %s\n", msg);
	else
		printf("cache: %s: %zu entries cleared\n", dir, entries);
	return 0;
}

/* --- export --- */

struct export {
	char *pbuf, *sbuf;
	size_t gsz;
	long skipped;
	bool write_failed;
};

static void export_entry(const struct grid *puzzle, const struct cache_entry *e, int status, void *arg)
{
	struct export *x = arg;
	if (status <= 0 || x->write_failed) {
		x->skipped += status <= 0;
		return;
	}
	msg_format_grid(puzzle, x->pbuf, x->gsz);
	if (e->verdict == V_SOLVED)
		msg_format_grid(&e->solution, x->sbuf, x->gsz);
	else
		snprintf(x->sbuf, x->gsz, "unsat");
	printf("%s %s", x->pbuf, x->sbuf);
	if (e->winner[0])
		printf(" winner=%s", e->winner);
	printf(" ms=%.3f unique=%s", e->ms, uniq_word(e->uniq));
	if (e->provers[0])
		printf(" provers=%s", e->provers);
	if (e->version[0])
		printf(" version=%s", e->version);
	if (putchar('\n') == EOF)
		x->write_failed = true;
}

static int cmd_export(const char *dir)
{
	printf("%s%d\n", EXPORT_HEADER, EXPORT_VERSION);
	int status = 0;
	if (store_exists(dir)) {
		if (open_or_fail(dir, true) < 0)
			return 2;
		struct export x = {.gsz = (size_t)GRID_MAX_CELLS * 3 + 1};
		x.pbuf = xmalloc(x.gsz);
		x.sbuf = xmalloc(x.gsz);
		char err[9000];
		if (cache_each(export_entry, &x, err, sizeof err) < 0) {
			fprintf(stderr, "%s: cache: %s; the export is incomplete\n", PROGRAM, err);
			status = 2;
		}
		cache_close();
		free(x.pbuf);
		free(x.sbuf);
		if (x.skipped)
			fprintf(stderr, "%s: cache: %ld unreadable entries not exported\n", PROGRAM, x.skipped);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return status;
		fprintf(stderr, "%s: write error: %s\n", PROGRAM, strerror(errno));
		return 2;
	}
	return status;
}

/* --- import --- */

/* One exported line into an entry; -1 with why when it is not one. */
static int parse_line(char *line, struct grid *puzzle, struct cache_entry *e, char *why, size_t whysz)
{
	char *save = NULL;
	char *pw = strtok_r(line, " \t\r\n", &save);
	char *aw = strtok_r(NULL, " \t\r\n", &save);
	struct notation nt;
	char err[GRID_ERR_MAX];
	if (!pw || !aw) {
		snprintf(why, whysz, "expected a puzzle and its answer");
		return -1;
	}
	if (grid_parse(pw, strlen(pw), puzzle, &nt, err, sizeof err) < 0) {
		snprintf(why, whysz, "the puzzle: %s", err);
		return -1;
	}
	cache_entry_clear(e);
	e->uniq = UNIQ_UNKNOWN;
	if (strcmp(aw, "unsat") == 0) {
		e->verdict = V_UNSAT;
	} else {
		e->verdict = V_SOLVED;
		if (grid_parse(aw, strlen(aw), &e->solution, &nt, err, sizeof err) < 0) {
			snprintf(why, whysz, "the solution: %s", err);
			return -1;
		}
		if (!grid_verify(puzzle, &e->solution, err, sizeof err)) {
			snprintf(why, whysz, "not a solution: %s", err);
			return -1;
		}
	}
	for (char *w = strtok_r(NULL, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *val = eq + 1;
		if (strcmp(w, "winner") == 0)
			snprintf(e->winner, sizeof e->winner, "%s", val);
		else if (strcmp(w, "ms") == 0)
			e->ms = atof(val);
		else if (strcmp(w, "version") == 0)
			snprintf(e->version, sizeof e->version, "%s", val);
		else if (strcmp(w, "provers") == 0)
			snprintf(e->provers, sizeof e->provers, "%s", val);
		else if (strcmp(w, "unique") == 0)
			e->uniq = strcmp(val, "yes") == 0 ? UNIQ_UNIQUE
				  : strcmp(val, "no") == 0 ? UNIQ_MULTIPLE
							   : UNIQ_UNKNOWN;
	}
	if (e->verdict == V_UNSAT)
		e->uniq = UNIQ_UNKNOWN;
	if (e->verdict == V_SOLVED && e->uniq == UNIQ_UNKNOWN)
		e->provers[0] = '\0'; /* nothing was proved */
	return 0;
}

/* An entry whose unsat or unique= claim awaits its proof. */
struct claim {
	struct grid *puzzle; /* at its size */
	struct cache_entry e;
};

struct claims {
	struct claim *v;
	size_t n, cap;
};

static void add_claim(struct claims *c, const struct grid *puzzle, const struct cache_entry *e)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n].puzzle = grid_dup(puzzle);
	c->v[c->n].e = *e;
	c->n++;
}

/* What sudoku-cp --count=2 says of a puzzle. */
enum proof { PROOF_NONE, PROOF_UNSAT, PROOF_UNIQUE, PROOF_SEVERAL };

/* Runs sudoku-cp --count=2 over every claimed puzzle, a file of them as
 * its input: one answer line per puzzle, in order. -1 with why when it
 * cannot be run. */
static int prove(const struct claims *c, enum proof *proof, char *why, size_t whysz)
{
	char *cp = workers_find_program("cp");
	if (!cp) {
		snprintf(why, whysz, "sudoku-cp is not found (in %s)", workers_search_path());
		return -1;
	}
	const char *tmpdir = getenv("TMPDIR");
	char path[4200];
	snprintf(path, sizeof path, "%s/sudoku-race-import-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(why, whysz, "cannot make a file of the puzzles: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		free(cp);
		return -1;
	}
	size_t gsz = (size_t)GRID_MAX_CELLS * 3 + 1;
	char *buf = xmalloc(gsz);
	for (size_t i = 0; i < c->n; i++) {
		msg_format_grid(c->v[i].puzzle, buf, gsz);
		fprintf(f, "%s\n", buf);
	}
	free(buf);
	int rc = 0;
	if (fclose(f) != 0) {
		snprintf(why, whysz, "cannot write %s: %s", path, strerror(errno));
		rc = -1;
	}
	int pipefd[2];
	pid_t pid = -1;
	if (rc == 0 && pipe(pipefd) == 0) {
		char limit[32];
		snprintf(limit, sizeof limit, "--time-limit=%d", PROOF_LIMIT_S);
		char *argv[] = {cp, "--count=2", limit, path, NULL};
		struct spawn_program sp = {.path = cp, .argv = argv, .stdin_fd = -1, .stdout_fd = pipefd[1]};
		pid = spawn_program(&sp, NULL, NULL);
		int err = errno;
		close(pipefd[1]);
		if (pid < 0)
			close(pipefd[0]);
		errno = err;
	}
	if (rc == 0) {
		FILE *in = fdopen(pipefd[0], "r");
		char *line = NULL;
		size_t cap = 0, i = 0;
		for (i = 0; i < c->n; i++)
			proof[i] = PROOF_NONE;
		i = 0;
		ssize_t len;
		while (in && i < c->n && (len = getline(&line, &cap, in)) >= 0) {
			/* its answer lines, read by the codec that writes them */
			struct answer_read a;
			bool read = answer_parse(line, (size_t)len, &a) == 0;
			if (read && (a.kind == ANSWER_UNSAT || a.kind == ANSWER_CLASH))
				proof[i] = PROOF_UNSAT;
			else if (read && a.kind == ANSWER_MULTIPLE)
				proof[i] = PROOF_SEVERAL;
			else if (read && a.kind == ANSWER_SOLVED)
				proof[i] = PROOF_UNIQUE;
			i++;
		}
		free(line);
		if (in)
			fclose(in);
		else
			close(pipefd[0]);
		int st;
		children_wait(pid, &st);
		if (!WIFEXITED(st) || WEXITSTATUS(st) > 1 || i < c->n) {
			snprintf(why, whysz, "%s --count=2 failed (%s %d)", cp,
				 WIFEXITED(st) ? "exit status" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			rc = -1;
		}
	}
	unlink(path);
	free(cp);
	return rc;
}

struct import_counts {
	long read, rejected, proved, unsat_dropped, unique_dropped, unproved;
};

/* Proves the claims (or drops them) and queues what holds. */
static void settle_claims(struct claims *c, struct import_counts *n)
{
	if (!c->n)
		return;
	enum proof *proof = xmalloc(c->n * sizeof *proof);
	char why[4400];
	if (prove(c, proof, why, sizeof why) < 0) {
		fprintf(stderr, "%s: cache import: %s: %zu claims not proved\n", PROGRAM, why, c->n);
		for (size_t i = 0; i < c->n; i++)
			proof[i] = PROOF_NONE;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct cache_entry *e = &c->v[i].e;
		bool unsat = e->verdict == V_UNSAT;
		bool holds = unsat ? proof[i] == PROOF_UNSAT
			     : e->uniq == UNIQ_UNIQUE ? proof[i] == PROOF_UNIQUE
						      : proof[i] == PROOF_SEVERAL;
		if (holds) {
			n->proved++;
			snprintf(e->provers, sizeof e->provers, "cp");
		} else {
			/* proof[i] == PROOF_NONE: cp ran out of time (or did not run) */
			if (proof[i] == PROOF_NONE)
				n->unproved++;
			else if (unsat)
				n->unsat_dropped++;
			else
				n->unique_dropped++;
			if (unsat)
				continue;
			/* the solution is verified: it stays, the claim goes */
			e->uniq = UNIQ_UNKNOWN;
			e->provers[0] = '\0';
		}
		cache_put(c->v[i].puzzle, e);
	}
	free(proof);
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].puzzle);
	c->n = 0;
}

/* The header line, if line is one: 1, version set; 0, not a header. */
static int header_version(const char *line, long *version)
{
	size_t hl = strlen(EXPORT_HEADER);
	if (strncmp(line, EXPORT_HEADER, hl) != 0)
		return 0;
	char *end;
	errno = 0;
	*version = strtol(line + hl, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (errno || end == line + hl || *end || *version < 1)
		*version = -1;
	return 1;
}

static int cmd_import(const char *dir, int nargs, char **args)
{
	bool trust = opt.cache_trust;
	int nfiles = 0;
	char **files = xmalloc((size_t)(nargs + 1) * sizeof *files);
	for (int i = 0; i < nargs; i++) {
		if (strcmp(args[i], "--trust") == 0)
			trust = true;
		else if (args[i][0] == '-' && args[i][1])
			usage();
		else
			files[nfiles++] = args[i];
	}
	if (open_or_fail(dir, false) < 0) {
		free(files);
		return 2;
	}
	union grid_room puzzle;
	struct cache_entry e;
	struct import_counts n = {0};
	struct claims claims = {NULL, 0, 0};
	int status = 0;
	char *line = NULL;
	size_t cap = 0;
	for (int f = 0; f < (nfiles ? nfiles : 1); f++) {
		const char *name = nfiles ? files[f] : "-";
		FILE *in = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
		const char *shown = in == stdin ? "standard input" : name;
		if (!in) {
			fprintf(stderr, "%s: %s: %s\n", PROGRAM, name, strerror(errno));
			status = 2;
			continue;
		}
		long lineno = 0;
		bool first = true;
		while (getline(&line, &cap, in) >= 0) {
			lineno++;
			char *p = line;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p || *p == '\n' || *p == '\r')
				continue;
			long version;
			if (first && header_version(p, &version)) {
				first = false;
				if (version == EXPORT_VERSION)
					continue;
				char *v = p + strlen(EXPORT_HEADER);
				v[strcspn(v, "\r\n")] = '\0';
				fprintf(stderr,
					"%s: cache import: %s: line %ld: an export of version '%s': this "
					"sudoku-race reads version %d and version 1 (no header line); nothing "
					"read from it\n",
					PROGRAM, shown, lineno, v, EXPORT_VERSION);
				status = 2;
				break;
			}
			if (*p == '#')
				continue;
			if (first)
				fprintf(stderr,
					"%s: cache import: %s: no '%s%d' header line: read as sudoku-race 0.1 "
					"wrote it (version 1)\n",
					PROGRAM, shown, EXPORT_HEADER, EXPORT_VERSION);
			first = false;
			char why[GRID_ERR_MAX + 32];
			if (parse_line(p, &puzzle.grid, &e, why, sizeof why) < 0) {
				fprintf(stderr, "%s: cache import: %s: line %ld: %s\n", PROGRAM, shown, lineno, why);
				n.rejected++;
				continue;
			}
			n.read++;
			if (!trust && (e.verdict == V_UNSAT || e.uniq != UNIQ_UNKNOWN))
				add_claim(&claims, &puzzle.grid, &e);
			else
				cache_put(&puzzle.grid, &e);
		}
		if (in != stdin)
			fclose(in);
	}
	free(line);
	free(files);
	settle_claims(&claims, &n);
	free(claims.v);
	bool ok = cache_finish() == 0;
	long written = stats_cache_get(CC_WRITTEN);
	cache_close();
	if (!ok)
		return 2;
	long dropped = n.unsat_dropped + n.unique_dropped + n.unproved;
	long stored = n.read - n.unsat_dropped;
	fprintf(stderr, "%s: cache import: %ld entries read, %ld written, %ld kept as they were, %ld rejected\n",
		PROGRAM, n.read, written, stored - written > 0 ? stored - written : 0, n.rejected);
	if (n.proved || dropped)
		fprintf(stderr,
			"%s: cache import: %ld unsat or unique= claims proved again by sudoku-cp, %ld dropped "
			"(%ld unsat where it finds a solution, %ld unique= it finds wrong, %ld it could not "
			"prove in %d s); --trust keeps claims as they are\n",
			PROGRAM, n.proved, dropped, n.unsat_dropped, n.unique_dropped, n.unproved, PROOF_LIMIT_S);
	if (status)
		return status;
	return n.rejected || dropped ? 1 : 0;
}

int cache_command(int argc, char **argv)
{
	if (argc < 2)
		usage();
	const char *sub = argv[1];
	const char *dir = opt.cache_dir ? opt.cache_dir : cache_default_dir();
	if (!dir) {
		fprintf(stderr, "%s: cache: no home directory to keep it in (use --cache DIR)\n", PROGRAM);
		return 2;
	}
	if (strcmp(sub, "import") == 0)
		return cmd_import(dir, argc - 2, argv + 2);
	if (argc > 2)
		usage();
	if (strcmp(sub, "stats") == 0)
		return cmd_stats(dir);
	if (strcmp(sub, "clear") == 0)
		return cmd_clear(dir);
	if (strcmp(sub, "export") == 0)
		return cmd_export(dir);
	usage();
}

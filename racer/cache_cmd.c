/* sudoku-race cache stats|clear|export|import.
 *
 * export writes one line per entry, import reads such lines, so caches of
 * several machines can be merged:
 *   PUZZLE ANSWER [winner=NAME] [ms=T] [unique=yes|no|unknown] [version=V]
 * PUZZLE and ANSWER are grids in the protocol's one-word notation
 * (PROTOCOL.md 3); ANSWER is the solution or the word unsat. Imported
 * solutions are verified; an entry already stored stays when it knows as
 * much (cache.c, keep_stored). */
#include "config.h"

#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "racer.h"

static void usage(void) __attribute__((noreturn));
static void usage(void)
{
	fprintf(stderr, "%s: usage: %s [--cache DIR] cache stats|clear|export|import [FILE]...\n", PROGRAM,
		PROGRAM);
	exit(2);
}

static bool exists(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0;
}

static int open_or_fail(const char *dir)
{
	char err[512];
	if (cache_open(dir, false, err, sizeof err) < 0) {
		fprintf(stderr, "%s: cache: %s\n", PROGRAM, err);
		return -1;
	}
	return 0;
}

/* Opens the store and a read transaction with a cursor over every entry. */
static int open_cursor(const char *dir, MDB_txn **txn, MDB_cursor **cur)
{
	if (open_or_fail(dir) < 0)
		return -1;
	int rc = mdb_txn_begin(cache_env(), NULL, MDB_RDONLY, txn);
	if (rc == 0 && (rc = mdb_cursor_open(*txn, cache_dbi(), cur)) != 0)
		mdb_txn_abort(*txn);
	if (rc != 0) {
		fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, dir, mdb_strerror(rc));
		cache_close();
		return -1;
	}
	return 0;
}

struct winner_count {
	char name[17];
	long n;
};

static int cmd_stats(const char *dir)
{
	if (!exists(dir)) {
		printf("cache: %s (not created yet)\nentries: 0\n", dir);
		return 0;
	}
	MDB_txn *txn;
	MDB_cursor *cur;
	if (open_cursor(dir, &txn, &cur) < 0)
		return 2;
	long entries = 0, solved = 0, unique = 0, several = 0, unsat = 0, bad = 0, newer = 0;
	struct winner_count winners[64] = {{"", 0}};
	int nwinners = 0;
	static struct cache_entry e;
	MDB_val k, v;
	char why[128];
	while (mdb_cursor_get(cur, &k, &v, MDB_NEXT) == 0) {
		entries++;
		int d = cache_decode(v.mv_data, v.mv_size, NULL, &e, why, sizeof why);
		if (d == 0) {
			newer++;
			continue;
		}
		if (d < 0) {
			bad++;
			continue;
		}
		if (e.verdict == V_UNSAT) {
			unsat++;
		} else {
			solved++;
			unique += e.uniq == UNIQ_UNIQUE;
			several += e.uniq == UNIQ_MULTIPLE;
		}
		int i;
		for (i = 0; i < nwinners && strcmp(winners[i].name, e.winner) != 0; i++)
			;
		if (i == nwinners && nwinners < 64) {
			snprintf(winners[nwinners].name, sizeof winners[nwinners].name, "%s", e.winner);
			winners[nwinners++].n = 0;
		}
		if (i < nwinners)
			winners[i].n++;
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	long long size = stat(path, &st) == 0 ? (long long)st.st_size : 0;
	printf("cache: %s\n", dir);
	printf("entries: %ld (%ld solved: %ld known unique, %ld with several solutions, %ld not "
	       "checked; %ld unsat",
	       entries, solved, unique, several, solved - unique - several, unsat);
	if (bad)
		printf("; %ld unreadable", bad);
	if (newer)
		printf("; %ld from a newer racer", newer);
	printf(")\nsize: %lld bytes on disk\n", size);
	if (nwinners) {
		printf("found by:");
		for (int i = 0; i < nwinners; i++)
			printf(" %s %ld%s", winners[i].name[0] ? winners[i].name : "?", winners[i].n,
			       i + 1 < nwinners ? "," : "");
		printf("\n");
	}
	cache_close();
	return 0;
}

static int cmd_clear(const char *dir)
{
	if (!exists(dir)) {
		printf("cache: %s: nothing to clear\n", dir);
		return 0;
	}
	if (open_or_fail(dir) < 0)
		return 2;
	MDB_txn *txn;
	MDB_stat ms;
	int rc = mdb_txn_begin(cache_env(), NULL, 0, &txn);
	if (rc == 0) {
		mdb_stat(txn, cache_dbi(), &ms);
		rc = mdb_drop(txn, cache_dbi(), 0);
		if (rc == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	cache_close();
	if (rc != 0) {
		fprintf(stderr, "%s: cache: %s: %s\n", PROGRAM, dir, mdb_strerror(rc));
		return 2;
	}
	printf("cache: %s: %zu entries cleared\n", dir, (size_t)ms.ms_entries);
	return 0;
}

static int cmd_export(const char *dir)
{
	if (!exists(dir))
		return 0;
	MDB_txn *txn;
	MDB_cursor *cur;
	if (open_cursor(dir, &txn, &cur) < 0)
		return 2;
	size_t gsz = (size_t)GRID_MAX_CELLS * 3 + 1;
	char *pbuf = xmalloc(gsz), *sbuf = xmalloc(gsz);
	static struct grid puzzle;
	static struct cache_entry e;
	long skipped = 0;
	MDB_val k, v;
	char why[128];
	while (mdb_cursor_get(cur, &k, &v, MDB_NEXT) == 0) {
		if (cache_decode(v.mv_data, v.mv_size, &puzzle, &e, why, sizeof why) <= 0) {
			skipped++;
			continue;
		}
		msg_format_grid(&puzzle, pbuf, gsz);
		if (e.verdict == V_SOLVED)
			msg_format_grid(&e.solution, sbuf, gsz);
		else
			snprintf(sbuf, gsz, "unsat");
		printf("%s %s", pbuf, sbuf);
		if (e.winner[0])
			printf(" winner=%s", e.winner);
		printf(" ms=%.3f unique=%s", e.ms,
		       e.uniq == UNIQ_UNIQUE ? "yes" : e.uniq == UNIQ_MULTIPLE ? "no" : "unknown");
		if (e.version[0])
			printf(" version=%s", e.version);
		if (putchar('\n') == EOF)
			break;
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	cache_close();
	free(pbuf);
	free(sbuf);
	if (skipped)
		fprintf(stderr, "%s: cache: %ld unreadable entries not exported\n", PROGRAM, skipped);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return 0;
		fprintf(stderr, "%s: write error: %s\n", PROGRAM, strerror(errno));
		return 2;
	}
	return 0;
}

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
	e->uniq = UNIQ_UNKNOWN;
	e->ms = 0;
	e->winner[0] = e->version[0] = '\0';
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
		else if (strcmp(w, "unique") == 0)
			e->uniq = strcmp(val, "yes") == 0 ? UNIQ_UNIQUE
				  : strcmp(val, "no") == 0 ? UNIQ_MULTIPLE
							   : UNIQ_UNKNOWN;
	}
	if (e->verdict == V_UNSAT)
		e->uniq = UNIQ_UNKNOWN;
	return 0;
}

static int cmd_import(const char *dir, int nfiles, char **files)
{
	if (open_or_fail(dir) < 0)
		return 2;
	static struct grid puzzle;
	static struct cache_entry e;
	long accepted = 0, rejected = 0;
	int status = 0;
	char *line = NULL;
	size_t cap = 0;
	for (int f = 0; f < (nfiles ? nfiles : 1); f++) {
		const char *name = nfiles ? files[f] : "-";
		FILE *in = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
		if (!in) {
			fprintf(stderr, "%s: %s: %s\n", PROGRAM, name, strerror(errno));
			status = 2;
			continue;
		}
		long lineno = 0;
		ssize_t n;
		while ((n = getline(&line, &cap, in)) >= 0) {
			lineno++;
			char *p = line;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p || *p == '\n' || *p == '\r' || *p == '#')
				continue;
			char why[GRID_ERR_MAX + 32];
			if (parse_line(p, &puzzle, &e, why, sizeof why) < 0) {
				fprintf(stderr, "%s: cache import: %s: line %ld: %s\n", PROGRAM,
					in == stdin ? "standard input" : name, lineno, why);
				rejected++;
				continue;
			}
			cache_put(&puzzle, &e);
			accepted++;
		}
		if (in != stdin)
			fclose(in);
	}
	free(line);
	cache_flush();
	bool ok = cache_enabled();
	long written = cache_counts.written;
	cache_close();
	if (!ok)
		return 2;
	fprintf(stderr, "%s: cache import: %ld entries read, %ld written, %ld kept as they were, %ld rejected\n",
		PROGRAM, accepted, written, accepted - written, rejected);
	if (status)
		return status;
	return rejected ? 1 : 0;
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

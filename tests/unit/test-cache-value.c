/* Unit tests: the cache's value codec (racer/cache_value.c). */
#include "config.h"

#include <stdlib.h>

#include "racer/cache_value.h"
#include "tap.h"

static const char *P1 = ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...";
static const char *S1 = "953168742862734951417952836746893125281645397395271468138529674574386219629417583";
static const char *P2 = ".................1.....2.3......3.2...4....5...6.1.....3......6.7..8...952.7.....";

/* The grid of a line, at its size (freed by the end of the test). */
static struct grid *grid_of(const char *text)
{
	union grid_room g;
	struct notation nt;
	char err[GRID_ERR_MAX];
	if (grid_parse(text, strlen(text), &g.grid, &nt, err, sizeof err) < 0) {
		printf("# %s: %s\n", text, err);
		abort();
	}
	return grid_dup(&g.grid);
}

int main(void)
{
	union grid_room back_room;
	struct grid *back = &back_room.grid;
	static struct cache_entry e, d;
	static uint8_t buf[CACHE_HEADER + 2 * GRID_MAX_CELLS], other[sizeof buf];
	char why[GRID_ERR_MAX + 64];
	struct grid *p1 = grid_of(P1), *s1 = grid_of(S1), *p2 = grid_of(P2);

	memset(&e, 0, sizeof e);
	e.verdict = V_SOLVED;
	e.uniq = UNIQ_UNIQUE;
	e.ms = 1.5;
	strcpy(e.winner, "cp");
	strcpy(e.provers, "cp,dlx");
	grid_copy(&e.solution, s1);
	size_t len = cache_encode(p1, &e, buf, sizeof buf);
	ok(len == CACHE_HEADER + 162 && len == cache_value_len(p1, &e), "a solved 9x9 entry: %zu bytes", len);
	ok(buf[0] == CACHE_FORMAT && buf[1] == 1 && buf[2] == 1 && buf[3] == 3, "format, verdict, uniqueness, box");
	ok(cache_encode(p1, &e, buf, len - 1) == 0, "not into a buffer too small");
	ok(cache_written_at(buf, len) == 0, "written at: not yet said");
	cache_set_written_at(buf, len, 123456789);
	ok(cache_written_at(buf, len) == 123456789 && buf[CACHE_TICK_AT] == (123456789 & 0xff),
	   "written at: the tick, in its place");
	ok(cache_written_at(buf, CACHE_HEADER - 1) == 0, "written at: a value too short does not say");
	ok(cache_decode(buf, len, back, &d, why, sizeof why) == 1, "decoded");
	ok(d.verdict == V_SOLVED && d.uniq == UNIQ_UNIQUE && d.ms == 1.5 && strcmp(d.winner, "cp") == 0 &&
	   strcmp(d.provers, "cp,dlx") == 0 && strcmp(d.version, PACKAGE_VERSION) == 0,
	   "its verdict, uniqueness, time, winner, provers, version");
	ok(back->box == 3 && memcmp(back->cell, p1->cell, 81) == 0 && memcmp(d.solution.cell, s1->cell, 81) == 0,
	   "its puzzle and solution");

	ok(cache_check(p1, buf, len, &d, why, sizeof why) == CACHE_HIT, "a check against its puzzle: a hit (%s)", why);
	ok(cache_check(p2, buf, len, &d, why, sizeof why) == CACHE_BAD, "against another puzzle (a replay): bad");
	is_str(why, "it is the entry of another puzzle", "and says so");
	memcpy(other, buf, len);
	other[CACHE_HEADER + 81] = other[CACHE_HEADER + 81 + 1]; /* a blank's value twice in its row */
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a tampered solution: bad (%s)", why);
	ok(cache_check(p1, buf, 7, &d, why, sizeof why) == CACHE_BAD, "7 bytes: bad");
	is_str(why, "a value of 7 bytes", "and says so");
	ok(cache_check(p1, buf, len + 1, &d, why, sizeof why) == CACHE_BAD, "a byte too many: bad (%s)", why);
	memcpy(other, buf, len);
	other[0] = CACHE_FORMAT + 1;
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_MISS, "a newer format: a miss, not bad");
	memcpy(other, buf, len);
	other[1] = 9;
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a verdict of 9: bad (%s)", why);
	memcpy(other, buf, len);
	other[8] = 0x01;
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a control character in a name: bad (%s)",
	   why);

	/* unsat */
	struct cache_entry u = {.verdict = V_UNSAT, .uniq = UNIQ_UNKNOWN};
	strcpy(u.provers, "cp,dlx");
	size_t ulen = cache_encode(p2, &u, other, sizeof other);
	ok(ulen == CACHE_HEADER + 81, "an unsat entry: the puzzle alone (%zu bytes)", ulen);
	ok(cache_check(p2, other, ulen, &d, why, sizeof why) == CACHE_HIT && d.verdict == V_UNSAT,
	   "checked: a hit (an unsat has no solution to verify)");

	/* which stays */
	ok(cache_keep_stored(buf, len, other, ulen) == false, "another puzzle's value stored: the fresh one goes in");
	struct cache_entry weaker = e;
	weaker.uniq = UNIQ_UNKNOWN;
	weaker.provers[0] = '\0';
	static uint8_t w[sizeof buf];
	size_t wlen = cache_encode(p1, &weaker, w, sizeof w);
	ok(cache_keep_stored(buf, len, w, wlen), "a stored entry that knows uniqueness stays");
	ok(!cache_keep_stored(w, wlen, buf, len), "one that does not is replaced by one that does");
	struct cache_entry claim = {.verdict = V_UNSAT};
	strcpy(claim.provers, "x,y");
	static uint8_t c[sizeof buf];
	size_t clen = cache_encode(p1, &claim, c, sizeof c);
	ok(cache_keep_stored(buf, len, c, clen), "a verified solution stays over an unsat");
	ok(!cache_keep_stored(c, clen, buf, len), "an unsat is replaced by a solution");
	ok(!cache_keep_stored("garbage", 7, buf, len), "garbage stored is replaced");

	uint8_t key1[CACHE_KEY_LEN], key2[CACHE_KEY_LEN];
	cache_key(p1, key1);
	char zeros[82];
	strcpy(zeros, P1);
	for (char *z = zeros; *z; z++)
		if (*z == '.')
			*z = '0';
	struct grid *dots = grid_of(zeros);
	cache_key(dots, key2);
	ok(memcmp(key1, key2, sizeof key1) == 0, "a puzzle's key does not depend on its notation");
	cache_key(p2, key2);
	ok(memcmp(key1, key2, sizeof key1) != 0, "another puzzle's does differ");
	uint8_t le[8];
	cache_put_le64(le, 0x0102030405060708ull);
	ok(le[0] == 8 && le[7] == 1 && cache_le64(le) == 0x0102030405060708ull, "little-endian 64-bit numbers");
	free(p1);
	free(s1);
	free(p2);
	free(dots);
	return tap_done();
}

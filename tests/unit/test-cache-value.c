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

/* A solved grid of box size n (the pattern every box size has), with
 * every third cell blanked in the puzzle. */
static void pattern(int n, struct grid *puzzle, struct grid *solution)
{
	int side = n * n;
	grid_init(puzzle, n);
	grid_init(solution, n);
	for (int r = 0; r < side; r++)
		for (int c = 0; c < side; c++) {
			int v = (r % n * n + r / n + c) % side + 1;
			solution->cell[r * side + c] = (uint8_t)v;
			puzzle->cell[r * side + c] = (uint8_t)((r * side + c) % 3 ? v : 0);
		}
}

/* Cell i of a format-3 9x9 value's packed cells (4 bits each) at at. */
static void set_nibble(uint8_t *b, size_t at, int i, int v)
{
	uint8_t *p = b + at + i / 2;
	*p = (uint8_t)(i % 2 ? (*p & 0x0f) | v << 4 : (*p & 0xf0) | v);
}

/* Every box size: encoded, decoded and checked, solved and unsat. */
static void round_trips(void)
{
	static union grid_room puzzle, solution, back;
	static struct cache_entry e, d;
	static uint8_t buf[CACHE_HEADER + 2 * GRID_MAX_CELLS];
	char why[GRID_ERR_MAX + 64] = "";
	for (int n = GRID_MIN_BOX; n <= GRID_MAX_BOX; n++) {
		pattern(n, &puzzle.grid, &solution.grid);
		memset(&e, 0, sizeof e);
		e.verdict = V_SOLVED;
		strcpy(e.winner, "sat");
		grid_copy(&e.solution, &solution.grid);
		size_t len = cache_encode(&puzzle.grid, &e, buf, sizeof buf);
		int cells = n * n * n * n, bits = n == 2 ? 3 : n == 3 ? 4 : n <= 5 ? 5 : n <= 7 ? 6 : 7;
		size_t want = 19 + 3 + strlen(PACKAGE_VERSION) + (size_t)(cells + 7) / 8 + (size_t)(cells * bits + 7) / 8;
		ok(len == want && cache_check(&puzzle.grid, buf, len, &d, why, sizeof why) == CACHE_HIT &&
		   cache_decode(buf, len, &back.grid, &d, why, sizeof why) == 1 &&
		   memcmp(back.grid.cell, puzzle.grid.cell, (size_t)cells) == 0 &&
		   memcmp(d.solution.cell, solution.grid.cell, (size_t)cells) == 0,
		   "%dx%d solved: %zu bytes (%d bits a cell), its puzzle and solution back (%s)", n * n, n * n, len, bits,
		   why);
		e.verdict = V_UNSAT;
		len = cache_encode(&puzzle.grid, &e, buf, sizeof buf);
		ok(cache_check(&puzzle.grid, buf, len, &d, why, sizeof why) == CACHE_HIT && d.verdict == V_UNSAT &&
		   cache_decode(buf, len, &back.grid, &d, why, sizeof why) == 1 &&
		   memcmp(back.grid.cell, puzzle.grid.cell, (size_t)cells) == 0,
		   "%dx%d unsat: %zu bytes, its puzzle back", n * n, n * n, len);
	}
}

/* Every byte of a value changed, and every length cut, one at a time: read
 * as a hit, a miss or bad, never past its end (the sanitizer build checks
 * that), and no change of a cell's bits a hit. */
static void mangled(const struct grid *p, const uint8_t *v, size_t len)
{
	static uint8_t m[CACHE_HEADER + 2 * GRID_MAX_CELLS];
	static union grid_room back;
	static struct cache_entry d;
	char why[GRID_ERR_MAX + 64];
	const uint8_t with[] = {0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xff};
	size_t cells_at = 19 + (size_t)v[16] + v[17] + v[18];
	bool ok_all = true;
	int hits = 0;
	for (size_t at = 0; at < len; at++)
		for (size_t k = 0; k <= sizeof with; k++) {
			memcpy(m, v, len);
			m[at] = k < sizeof with ? with[k] : (uint8_t)(v[at] ^ 1);
			if (m[at] == v[at])
				continue;
			enum cache_result r = cache_check(p, m, len, &d, why, sizeof why);
			int dec = cache_decode(m, len, &back.grid, &d, why, sizeof why);
			ok_all &= r == CACHE_HIT || r == CACHE_MISS || r == CACHE_BAD;
			ok_all &= dec >= -1 && dec <= 1;
			/* the ms and the tick may change; a name's letter, a
			 * uniqueness; a cell never */
			if (r == CACHE_HIT && at >= cells_at)
				hits++;
		}
	for (size_t cut = 0; cut < len; cut++)
		ok_all &= cache_check(p, v, cut, &d, why, sizeof why) == CACHE_BAD;
	ok(ok_all && hits == 0, "a %zu-byte value mangled a byte at a time, and cut: never a crash, no cell changed a hit",
	   len);
}

/* A value as sudoku-race 0.2 wrote it (format 2) is still read. */
static void format_2(const struct grid *p, const struct grid *s)
{
	static uint8_t v[CACHE_HEADER + 162];
	static struct cache_entry d;
	char why[GRID_ERR_MAX + 64] = "";
	memset(v, 0, sizeof v);
	v[0] = 2, v[1] = 1, v[2] = 1, v[3] = 3;
	v[4] = 0xe8, v[5] = 0x03; /* 1 ms */
	memcpy(v + 8, "dlx", 3);
	memcpy(v + 24, "0.2", 3);
	v[CACHE_TICK_AT] = 42;
	memcpy(v + 48, "cp,dlx", 6);
	memcpy(v + CACHE_HEADER, p->cell, 81);
	memcpy(v + CACHE_HEADER + 81, s->cell, 81);
	ok(cache_check(p, v, sizeof v, &d, why, sizeof why) == CACHE_HIT && d.ms == 1.0 &&
	   strcmp(d.winner, "dlx") == 0 && strcmp(d.version, "0.2") == 0 && strcmp(d.provers, "cp,dlx") == 0 &&
	   memcmp(d.solution.cell, s->cell, 81) == 0,
	   "format 2: read, a hit (%s)", why);
	ok(cache_written_at(v, sizeof v) == 42, "format 2: its tick, at byte 40");
	v[CACHE_HEADER + 81] = v[CACHE_HEADER + 82];
	ok(cache_check(p, v, sizeof v, &d, why, sizeof why) == CACHE_BAD, "format 2: tampered, bad (%s)", why);
}

/* LMDB's own order of keys: memcmp of the shorter length, then the
 * shorter first */
static int lmdb_order(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int d = n ? memcmp(a, b, n) : 0;
	if (d)
		return d < 0 ? -1 : 1;
	return (alen > blen) - (alen < blen);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* The store's order is LMDB's, keys of 16 bytes or not: keys that differ
 * in one byte (high or low, either half), random keys, and the store's
 * other keys (its format record, its databases' names). */
static void key_order(void)
{
	uint8_t a[CACHE_KEY_LEN + 4], b[CACHE_KEY_LEN + 4];
	int wrong = 0, tried = 0;
	srand(7);
	for (int i = 0; i < 20000; i++) {
		for (size_t j = 0; j < sizeof a; j++)
			a[j] = (uint8_t)rand();
		memcpy(b, a, sizeof b);
		if (i % 4) /* one byte apart, at every place, both ways */
			b[i % CACHE_KEY_LEN] = (uint8_t)(a[i % CACHE_KEY_LEN] + (i % 2 ? 1 : -1) * (1 + rand() % 255));
		if (i % 7 == 0)
			for (size_t j = 0; j < sizeof b; j++)
				b[j] = (uint8_t)rand();
		size_t alen = CACHE_KEY_LEN, blen = CACHE_KEY_LEN;
		if (i % 11 == 0)
			alen = (size_t)(rand() % (int)sizeof a), blen = (size_t)(rand() % (int)sizeof b);
		tried++;
		wrong += sign(cache_key_order(a, alen, b, blen)) != lmdb_order(a, alen, b, blen);
		wrong += sign(cache_key_order(b, blen, a, alen)) != lmdb_order(b, blen, a, alen);
	}
	ok(wrong == 0, "key order: LMDB's in %d pairs both ways (%d wrong)", tried, wrong);
	ok(cache_key_order(a, CACHE_KEY_LEN, a, CACHE_KEY_LEN) == 0, "key order: a key is its own equal");
	ok(cache_key_order("sudoku-race", 11, "uses", 4) < 0 && cache_key_order("uses", 4, "usesx", 5) < 0 &&
	   cache_key_order("", 0, "ages", 4) < 0,
	   "key order: the store's other keys, by bytes then length");
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
	size_t names = 2 + strlen(PACKAGE_VERSION) + 6, cells_at = 19 + names + 11;
	ok(len == cells_at + 41 && len == cache_value_len(p1, &e), "a solved 9x9 entry: %zu bytes", len);
	ok(buf[0] == CACHE_FORMAT && buf[1] == 1 && buf[2] == 1 && buf[3] == 3, "format, verdict, uniqueness, box");
	ok(cache_encode(p1, &e, buf, len - 1) == 0, "not into a buffer too small");
	ok(cache_written_at(buf, len) == 0, "written at: not yet said");
	cache_set_written_at(buf, len, 123456789);
	ok(cache_written_at(buf, len) == 123456789 && buf[8] == (123456789 & 0xff),
	   "written at: the tick, in its place (byte 8)");
	ok(cache_written_at(buf, 18) == 0, "written at: a value too short does not say");
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
	/* a blank's value (cell 0) the same as its neighbour's: twice in its row */
	set_nibble(other, cells_at, 0, s1->cell[1]);
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a tampered solution: bad (%s)", why);
	memcpy(other, buf, len);
	other[cells_at - 11] |= 1; /* cell 0 a given: no longer the puzzle asked */
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a tampered mask: bad");
	is_str(why, "it is the entry of another puzzle", "and says so");
	memcpy(other, buf, len);
	other[cells_at - 1] |= 0x80; /* a padding bit of the mask (cells 81-87) */
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a padding bit set: bad");
	is_str(why, "a malformed grid", "and says so");
	memcpy(other, buf, len);
	set_nibble(other, cells_at, 5, 12); /* a 12 in a 9x9 grid */
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a value over the side: bad (%s)", why);
	memcpy(other, buf, len);
	other[16] = 17;
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a name longer than 16: bad (%s)", why);
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
	other[19] = 0x01;
	ok(cache_check(p1, other, len, &d, why, sizeof why) == CACHE_BAD, "a control character in a name: bad (%s)",
	   why);

	/* unsat */
	struct cache_entry u = {.verdict = V_UNSAT, .uniq = UNIQ_UNKNOWN};
	strcpy(u.provers, "cp,dlx");
	size_t ulen = cache_encode(p2, &u, other, sizeof other);
	ok(ulen == 19 + strlen(PACKAGE_VERSION) + 6 + 41, "an unsat entry: the puzzle alone (%zu bytes)", ulen);
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
	mangled(p1, buf, len);
	{
		static union grid_room big, big_solution;
		static struct cache_entry be;
		static uint8_t bv[CACHE_HEADER + 2 * GRID_MAX_CELLS];
		pattern(5, &big.grid, &big_solution.grid);
		memset(&be, 0, sizeof be);
		be.verdict = V_SOLVED;
		grid_copy(&be.solution, &big_solution.grid);
		mangled(&big.grid, bv, cache_encode(&big.grid, &be, bv, sizeof bv));
		be.verdict = V_UNSAT;
		mangled(&big.grid, bv, cache_encode(&big.grid, &be, bv, sizeof bv));
	}
	round_trips();
	format_2(p1, s1);
	key_order();
	free(p1);
	free(s1);
	free(p2);
	free(dots);
	return tap_done();
}

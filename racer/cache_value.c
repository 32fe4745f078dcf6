/* The cache's value codec (cache_value.h): the layout is there. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racer/cache_value.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/common.h"

#define VERDICT_SOLVED 1
#define VERDICT_UNSAT 2

void cache_key(const struct grid *puzzle, uint8_t key[CACHE_KEY_LEN])
{
	struct grid_hash h = grid_hash(puzzle);
	for (int i = 0; i < 8; i++) {
		key[i] = (uint8_t)(h.high >> (56 - 8 * i));
		key[8 + i] = (uint8_t)(h.low >> (56 - 8 * i));
	}
}

static size_t header_len(const uint8_t *b)
{
	return b[0] == 1 ? CACHE_HEADER_V1 : CACHE_HEADER;
}

/* --- format 3 (cache_value.h has the layout) --- */

#define V3_TICK_AT 8
#define V3_LENS_AT 16 /* the names' lengths: winner, version, provers */
#define V3_HEADER 19

/* Bits a cell takes: enough for 0 to the side (4 for a 9x9 grid). */
static int cell_bits(int side)
{
	int w = 1;
	while ((1 << w) <= side)
		w++;
	return w;
}

static size_t mask_len(size_t cells)
{
	return (cells + 7) / 8;
}

static size_t packed_len(size_t cells, int side)
{
	return (cells * (size_t)cell_bits(side) + 7) / 8;
}

/* A bit for each cell, set where it is not 0: mask_len(n) bytes. */
static void given_mask(const uint8_t *cells, size_t n, uint8_t *mask)
{
	size_t byte = 0;
#ifdef __SSE2__
	/* sixteen cells a compare, their bits in one movemask */
	const __m128i zero = _mm_setzero_si128();
	for (; byte + 2 <= n / 8; byte += 2) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(cells + byte * 8));
		unsigned blank = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
		mask[byte] = (uint8_t)~blank;
		mask[byte + 1] = (uint8_t)(~blank >> 8);
	}
#endif
	for (; byte < mask_len(n); byte++) {
		unsigned bits = 0;
		for (size_t k = 0; k < 8 && byte * 8 + k < n; k++)
			bits |= (unsigned)(cells[byte * 8 + k] != 0) << k;
		mask[byte] = (uint8_t)bits;
	}
}

/* The cells, w bits each, low bits first. */
static void pack(const uint8_t *cells, size_t n, int w, uint8_t *out)
{
	uint32_t acc = 0;
	int held = 0;
	if (w == 4) {
		/* 9x9: two cells a byte (every answer of a cold run) */
		for (size_t i = 0; i + 1 < n; i += 2)
			*out++ = (uint8_t)(cells[i] | cells[i + 1] << 4);
		if (n % 2)
			*out = cells[n - 1];
		return;
	}
	for (size_t i = 0; i < n; i++) {
		acc |= (uint32_t)cells[i] << held;
		for (held += w; held >= 8; held -= 8, acc >>= 8)
			*out++ = (uint8_t)acc;
	}
	if (held)
		*out = (uint8_t)acc;
}

/* pack's inverse; false when a value is over max or a padding bit is set
 * (a value no racer wrote). */
static bool unpack(const uint8_t *in, size_t n, int w, int max, uint8_t *cells)
{
	uint32_t acc = 0, bad = 0;
	int held = 0;
	if (w == 4) {
		/* 9x9, every hit of a 9x9 run: two cells a byte */
		size_t i = 0;
		uint8_t over = 0;
#ifdef __SSE2__
		/* thirty-two cells from sixteen bytes: the low and high nibbles
		 * interleaved, and each compared with max */
		const __m128i low4 = _mm_set1_epi8(0x0f), top = _mm_set1_epi8((char)max);
		__m128i over16 = _mm_setzero_si128();
		for (; i + 32 <= n; i += 32) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i / 2));
			__m128i lo = _mm_and_si128(v, low4), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
			__m128i a = _mm_unpacklo_epi8(lo, hi), b = _mm_unpackhi_epi8(lo, hi);
			over16 = _mm_or_si128(over16, _mm_or_si128(_mm_cmpgt_epi8(a, top), _mm_cmpgt_epi8(b, top)));
			_mm_storeu_si128((__m128i *)(void *)(cells + i), a);
			_mm_storeu_si128((__m128i *)(void *)(cells + i + 16), b);
		}
		over = _mm_movemask_epi8(over16) != 0;
#endif
		for (; i + 2 <= n; i += 2) {
			cells[i] = in[i / 2] & 15;
			cells[i + 1] = (uint8_t)(in[i / 2] >> 4);
			over |= (uint8_t)(cells[i] > max || cells[i + 1] > max);
		}
		if (i < n) {
			cells[i] = in[i / 2] & 15;
			over |= (uint8_t)(cells[i] > max);
			bad = in[i / 2] >> 4;
		}
		return !bad && !over;
	}
	const uint32_t value_mask = (1u << w) - 1;
	for (size_t i = 0; i < n; i++) {
		if (held < w) {
			acc |= (uint32_t)*in++ << held;
			held += 8;
		}
		uint32_t v = acc & value_mask;
		bad |= v > (uint32_t)max;
		cells[i] = (uint8_t)v;
		acc >>= w;
		held -= w;
	}
	return !bad && acc == 0;
}

size_t cache_value_max(void)
{
	/* format 2's longest: format 3 is shorter */
	return CACHE_HEADER + 2 * (size_t)GRID_MAX_CELLS;
}

static const char *version_of(const struct cache_entry *e)
{
	return e->version[0] ? e->version : PACKAGE_VERSION;
}

size_t cache_value_len(const struct grid *puzzle, const struct cache_entry *e)
{
	size_t cells = (size_t)puzzle->cells;
	return V3_HEADER + strnlen(e->winner, 16) + strnlen(version_of(e), 16) +
	       strnlen(e->provers, CACHE_PROVERS_MAX - 1) + packed_len(cells, puzzle->side) +
	       (e->verdict == V_SOLVED ? mask_len(cells) : 0);
}

size_t cache_encode(const struct grid *puzzle, const struct cache_entry *e, uint8_t *buf,
		    size_t bufsz)
{
	size_t cells = (size_t)puzzle->cells;
	size_t len = cache_value_len(puzzle, e);
	if (len > bufsz)
		return 0;
	memset(buf, 0, V3_HEADER);
	buf[0] = CACHE_FORMAT;
	buf[1] = e->verdict == V_SOLVED ? VERDICT_SOLVED : VERDICT_UNSAT;
	buf[2] = (uint8_t)e->uniq;
	buf[3] = (uint8_t)puzzle->box;
	double us = e->ms * 1000.0;
	uint32_t t = us <= 0 ? 0 : us >= 4294967295.0 ? UINT32_MAX : (uint32_t)us;
	for (int i = 0; i < 4; i++)
		buf[4 + i] = (uint8_t)(t >> (8 * i));
	const char *names[3] = {e->winner, version_of(e), e->provers};
	const size_t most[3] = {16, 16, CACHE_PROVERS_MAX - 1};
	uint8_t *at = buf + V3_HEADER;
	for (int i = 0; i < 3; i++) {
		size_t n = strnlen(names[i], most[i]);
		buf[V3_LENS_AT + i] = (uint8_t)n;
		memcpy(at, names[i], n);
		at += n;
	}
	int w = cell_bits(puzzle->side);
	if (e->verdict != V_SOLVED) {
		pack(puzzle->cell, cells, w, at);
		return len;
	}
	/* a solved puzzle is its solution where the givens are */
	given_mask(puzzle->cell, cells, at);
	pack(e->solution.cell, cells, w, at + mask_len(cells));
	return len;
}

/* A name field: printable ASCII up to its first NUL, or n bytes; its
 * length, or -1 when it is not. */
static long copy_name(char *out, const uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i < n && b[i]; i++) {
		if (b[i] < 0x21 || b[i] > 0x7e)
			return -1;
		out[i] = (char)b[i];
	}
	out[i] = '\0';
	return (long)i;
}

static bool header_ok(const uint8_t *b)
{
	return (b[1] == VERDICT_SOLVED || b[1] == VERDICT_UNSAT) && b[2] <= UNIQ_MULTIPLE && b[3] >= GRID_MIN_BOX &&
	       b[3] <= GRID_MAX_BOX;
}

static void decode_common(const uint8_t *b, struct cache_entry *e)
{
	e->verdict = b[1] == VERDICT_SOLVED ? V_SOLVED : V_UNSAT;
	e->uniq = (enum uniqueness)b[2];
	e->ms = (double)((uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24) /
		1000.0;
}

/* Formats 1 and 2: fixed names, then the cells a byte each. */
static int decode_v2(const uint8_t *b, size_t len, struct grid *puzzle, struct cache_entry *e, char *why,
		     size_t whysz)
{
	size_t header = header_len(b);
	int box = b[3];
	if (len < header || !header_ok(b)) {
		snprintf(why, whysz, "a malformed header");
		return -1;
	}
	size_t cells = (size_t)box * box * box * box;
	bool solved = b[1] == VERDICT_SOLVED;
	if (len != header + cells * (solved ? 2 : 1)) {
		snprintf(why, whysz, "a value of %zu bytes for a %dx%d grid", len, box * box, box * box);
		return -1;
	}
	e->provers[0] = '\0';
	if (copy_name(e->winner, b + 8, 16) < 0 || copy_name(e->version, b + 24, 16) < 0 ||
	    (header == CACHE_HEADER && copy_name(e->provers, b + 48, CACHE_PROVERS_MAX - 1) < 0)) {
		snprintf(why, whysz, "a malformed name");
		return -1;
	}
	/* every cell 0 to the side, as format 3's are (an export prints them) */
	uint8_t over = 0;
	for (size_t i = 0; i < cells * (solved ? 2 : 1); i++)
		over |= (uint8_t)(b[header + i] > box * box);
	if (over) {
		snprintf(why, whysz, "a malformed grid");
		return -1;
	}
	decode_common(b, e);
	if (puzzle)
		grid_from_cells(puzzle, box, b + header);
	if (solved)
		grid_from_cells(&e->solution, box, b + header + cells);
	return 1;
}

/* Format 3: the names at their lengths, then the cells packed (a solved
 * puzzle as its givens' mask and its solution). */
static int decode_v3(const uint8_t *b, size_t len, struct grid *puzzle, struct cache_entry *e, char *why,
		     size_t whysz)
{
	if (len < V3_HEADER || !header_ok(b) || b[V3_LENS_AT] > 16 || b[V3_LENS_AT + 1] > 16 ||
	    b[V3_LENS_AT + 2] > CACHE_PROVERS_MAX - 1) {
		snprintf(why, whysz, "a malformed header");
		return -1;
	}
	int box = b[3], side = box * box;
	size_t cells = (size_t)side * (size_t)side;
	bool solved = b[1] == VERDICT_SOLVED;
	size_t names = (size_t)b[V3_LENS_AT] + b[V3_LENS_AT + 1] + b[V3_LENS_AT + 2];
	size_t mask = solved ? mask_len(cells) : 0;
	if (len != V3_HEADER + names + mask + packed_len(cells, side)) {
		snprintf(why, whysz, "a value of %zu bytes for a %dx%d grid", len, side, side);
		return -1;
	}
	const uint8_t *at = b + V3_HEADER;
	char *outs[3] = {e->winner, e->version, e->provers};
	for (int i = 0; i < 3; i++) {
		size_t n = b[V3_LENS_AT + i];
		if (copy_name(outs[i], at, n) != (long)n) {
			snprintf(why, whysz, "a malformed name");
			return -1;
		}
		at += n;
	}
	decode_common(b, e);
	int w = cell_bits(side);
	if (!solved) {
		uint8_t unused[GRID_MAX_CELLS] = {0}; /* (an unsat value: rare) */
		grid_init(&e->solution, GRID_MIN_BOX);
		if (puzzle)
			grid_init(puzzle, box);
		if (!unpack(at, cells, w, side, puzzle ? puzzle->cell : unused)) {
			snprintf(why, whysz, "a malformed grid");
			return -1;
		}
		return 1;
	}
	grid_init(&e->solution, box);
	bool padded = cells % 8 == 0 || (at[mask - 1] >> (cells % 8)) == 0;
	if (!padded || !unpack(at + mask, cells, w, side, e->solution.cell)) {
		snprintf(why, whysz, "a malformed grid");
		return -1;
	}
	if (puzzle) {
		grid_init(puzzle, box);
		for (size_t i = 0; i < cells; i++)
			puzzle->cell[i] = at[i / 8] >> (i % 8) & 1 ? e->solution.cell[i] : 0;
	}
	return 1;
}

int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e,
		 char *why, size_t whysz)
{
	const uint8_t *b = data;
	if (len < 8) {
		snprintf(why, whysz, "a value of %zu bytes", len);
		return -1;
	}
	if (b[0] > CACHE_FORMAT)
		return 0; /* written by a newer racer: not ours to judge */
	if (b[0] < 1) {
		snprintf(why, whysz, "a malformed header");
		return -1;
	}
	if (b[0] < 3 && len < CACHE_HEADER_V1) {
		snprintf(why, whysz, "a value of %zu bytes", len);
		return -1;
	}
	return b[0] == 3 ? decode_v3(b, len, puzzle, e, why, whysz) : decode_v2(b, len, puzzle, e, why, whysz);
}

/* Whether the value's puzzle is the one asked: stored, as decoded (an
 * unsat value's), or else read in place. A solved format-3 value holds it
 * as its givens: the same cells given here, and the solution's values
 * there, which grid_verify checks next. */
static bool same_puzzle(const uint8_t *b, const struct grid *stored, const struct grid *asked)
{
	size_t cells = (size_t)asked->cells;
	if (b[3] != asked->box)
		return false;
	if (stored)
		return memcmp(stored->cell, asked->cell, cells) == 0;
	if (b[0] < 3)
		return memcmp(b + header_len(b), asked->cell, cells) == 0;
	uint8_t given[GRID_MAX_CELLS / 8];
	given_mask(asked->cell, cells, given);
	return memcmp(given, b + V3_HEADER + b[V3_LENS_AT] + b[V3_LENS_AT + 1] + b[V3_LENS_AT + 2], mask_len(cells)) ==
	       0;
}

enum cache_result cache_check(const struct grid *puzzle, const void *data, size_t len,
			      struct cache_entry *e, char *why, size_t whysz)
{
	/* an unsat value's puzzle is decoded to be compared; a solved one's
	 * is not built (every hit of a warm run) */
	const uint8_t *b = data;
	union grid_room room;
	struct grid *stored = len > 1 && b[1] == VERDICT_UNSAT ? &room.grid : NULL;
	int d = cache_decode(data, len, stored, e, why, whysz);
	if (d <= 0)
		return d == 0 ? CACHE_MISS : CACHE_BAD;
	if (!same_puzzle(data, stored, puzzle)) {
		snprintf(why, whysz, "it is the entry of another puzzle");
		return CACHE_BAD;
	}
	if (e->verdict == V_SOLVED && !grid_verify(puzzle, &e->solution, why, whysz))
		return CACHE_BAD;
	return CACHE_HIT;
}

static size_t tick_at(const uint8_t *b, size_t len)
{
	if (len >= V3_HEADER && b[0] == 3)
		return V3_TICK_AT;
	if (len >= CACHE_HEADER && b[0] == 2)
		return CACHE_TICK_AT;
	return 0;
}

uint64_t cache_written_at(const void *value, size_t len)
{
	const uint8_t *b = value;
	size_t at = tick_at(b, len);
	return at ? cache_le64(b + at) : 0;
}

void cache_set_written_at(void *value, size_t len, uint64_t tick)
{
	uint8_t *b = value;
	size_t at = tick_at(b, len);
	if (at)
		cache_put_le64(b + at, tick);
}

bool cache_keep_stored(const void *stored, size_t stored_len, const void *fresh, size_t fresh_len)
{
	struct {
		union grid_room sp, fp;
		struct cache_entry se, fe;
	} *both = xmalloc(sizeof *both);
	const struct grid *sp = &both->sp.grid, *fp = &both->fp.grid;
	const struct cache_entry *se = &both->se, *fe = &both->fe;
	char why[GRID_ERR_MAX];
	bool keep;
	if (cache_decode(stored, stored_len, &both->sp.grid, &both->se, why, sizeof why) <= 0)
		keep = false;
	else if (cache_decode(fresh, fresh_len, &both->fp.grid, &both->fe, why, sizeof why) <= 0)
		keep = true;
	else if (sp->box != fp->box || memcmp(sp->cell, fp->cell, (size_t)sp->cells) != 0)
		keep = false; /* another puzzle's entry (a collision): replaced */
	else if (se->verdict == V_SOLVED && !grid_verify(sp, &se->solution, why, sizeof why))
		keep = false;
	else if (se->verdict != fe->verdict)
		keep = se->verdict == V_SOLVED;
	else if (se->verdict == V_SOLVED && se->uniq == UNIQ_UNKNOWN && fe->uniq != UNIQ_UNKNOWN)
		keep = false;
	else
		keep = !(se->provers[0] == '\0' && fe->provers[0] != '\0');
	free(both);
	return keep;
}

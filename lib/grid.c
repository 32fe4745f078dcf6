/* Grid notation (parse, format), the givens check, verification. */
#include "config.h"

#include "grid.h"
#include "grid_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "geometry.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

void notation_default(struct notation *nt, int side)
{
	nt->style = side <= GRID_MAX_CHAR_SIDE ? NOTATION_CHARS : NOTATION_NUMBERS;
	nt->blank = '.';
	nt->lower = false;
	nt->minus_one = false;
}

/* Sets box, side and cells for box size n; the cells are the caller's. */
static void set_size(struct grid *g, int box)
{
	g->box = box;
	g->side = box * box;
	g->cells = g->side * g->side;
}

void grid_init(struct grid *g, int box)
{
	set_size(g, box);
	memset(g->cell, 0, (size_t)g->cells);
}

void grid_from_cells(struct grid *g, int box, const uint8_t *values)
{
	set_size(g, box);
	memcpy(g->cell, values, (size_t)g->cells);
}

struct grid *grid_new(int box)
{
	struct grid *g = xmalloc(grid_size(box));
	grid_init(g, box);
	return g;
}

void grid_copy(struct grid *to, const struct grid *from)
{
	memcpy(to, from, grid_bytes(from));
}

struct grid *grid_dup(const struct grid *g)
{
	struct grid *d = xmalloc(grid_bytes(g));
	grid_copy(d, g);
	return d;
}

int grid_box_for_side(int side)
{
	for (int n = GRID_MIN_BOX; n <= GRID_MAX_BOX; n++)
		if (n * n == side)
			return n;
	return 0;
}

int grid_box_for_cells(long cells)
{
	for (long n = GRID_MIN_BOX; n <= GRID_MAX_BOX; n++)
		if (n * n * n * n == cells)
			return (int)n;
	return 0;
}

int grid_count_blanks(const struct grid *g)
{
	int blanks = 0;
	for (int i = 0; i < g->cells; i++)
		blanks += g->cell[i] == 0;
	return blanks;
}

/* The cell count nearest to n among the sizes we take, for messages like
 * "80 cells, expected 81". */
long grid_nearest_cells(long n)
{
	long best = 16;
	for (long b = GRID_MIN_BOX; b <= GRID_MAX_BOX; b++) {
		long c = b * b * b * b;
		if (labs(c - n) < labs(best - n))
			best = c;
	}
	return best;
}

static bool is_blank_char(int c)
{
	return c == '.' || c == '0' || c == '_' || c == '-';
}

/* Value of a character in the 1-9A-Z alphabet, 0 for none. */
static int char_value(int c)
{
	if (c >= '1' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	return 0;
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0' + 1;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 11;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 11;
	return 0;
}

static char value_char(int v, const struct notation *nt)
{
	if (nt->style == NOTATION_HEX) {
		int d = v - 1;
		return (char)(d < 10 ? '0' + d : (nt->lower ? 'a' : 'A') + d - 10);
	}
	if (v <= 9)
		return (char)('0' + v);
	return (char)((nt->lower ? 'a' : 'A') + v - 10);
}

/* The largest value written as a character, for out-of-range messages. */
static char max_char(int side, const struct notation *nt)
{
	return value_char(side, nt);
}

/* Decides between the 1-9A-Z alphabet and the 16x16 hex style (0-F are the
 * values 1-16) for a 16x16 grid of characters. Never hex when a 'G' (value
 * 16 in the letter alphabet) appears. Hex when a '0' appears beside another
 * blank ('.', '_', '-'), or when there are no other blanks and each of 0-F
 * appears 16 times (a full hex grid, i.e. a solution). Otherwise '0' is a
 * blank. A grid with neither '0' nor 'G' could be either; it reads as
 * letters, the notation of every other size. */
static bool looks_hex(const char *s, size_t n)
{
	bool other_blank = false;
	int count[16] = {0};
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == 'G' || c == 'g')
			return false;
		if (is_blank_char(c) && c != '0')
			other_blank = true;
		else if (hex_value(c))
			count[hex_value(c) - 1]++;
	}
	if (!count[0])
		return false;
	if (other_blank)
		return true;
	for (int v = 0; v < 16; v++)
		if (count[v] != 16)
			return false;
	return true;
}

/* Parses n cell characters (no separators) for box size box. Shared with
 * the block-grid reader, which collects the cells of all rows first. */
/* The 81 cells of a plain 9x9 line, 16 at a time: each byte a digit or
 * '.', or the line is not one (a byte at a time, this was a fifth of the
 * racer's time on a file of easy puzzles, and a few percent of a
 * worker's on the protocol's solve lines). */
#ifdef __SSE2__
bool grid_cells_plain_9x9(const char *s, uint8_t *cell, char *blank)
{
	const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9), dot = _mm_set1_epi8('.');
	unsigned ok = 0xffff;
	for (int k = 0; k < 80; k += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + k));
		__m128i d = _mm_sub_epi8(v, zero);
		__m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, nine), d); /* '0'..'9' */
		__m128i dots = _mm_cmpeq_epi8(v, dot);
		ok &= (unsigned)_mm_movemask_epi8(_mm_or_si128(digit, dots));
		_mm_storeu_si128((__m128i *)(void *)(cell + k), _mm_and_si128(d, digit));
		if (!*blank) {
			unsigned b = (unsigned)_mm_movemask_epi8(_mm_or_si128(dots, _mm_cmpeq_epi8(v, zero)));
			if (b)
				*blank = s[k + __builtin_ctz(b)];
		}
	}
	char c = s[80];
	if (c >= '0' && c <= '9')
		cell[80] = (uint8_t)(c - '0');
	else if (c == '.')
		cell[80] = 0;
	else
		return false;
	if (!*blank && (c == '.' || c == '0'))
		*blank = c;
	return ok == 0xffff;
}
#else
bool grid_cells_plain_9x9(const char *s, uint8_t *cell, char *blank)
{
	for (int i = 0; i < 81; i++) {
		char c = s[i];
		if (c >= '1' && c <= '9') {
			cell[i] = (uint8_t)(c - '0');
		} else if (c == '.' || c == '0') {
			cell[i] = 0;
			if (!*blank)
				*blank = c;
		} else {
			return false;
		}
	}
	return true;
}
#endif

bool grid_parse_plain_9x9(const char *s, struct grid *g, struct notation *nt)
{
	char blank = 0;
	if (!grid_cells_plain_9x9(s, g->cell, &blank))
		return false;
	set_size(g, 3);
	nt->style = NOTATION_CHARS;
	nt->blank = blank ? blank : '.';
	nt->lower = false;
	nt->minus_one = false;
	return true;
}

int grid_parse_cells(const char *s, size_t n, int box, struct grid *g, struct notation *nt,
		     char *err, size_t errsz)
{
	if (box == 3 && n == 81 && grid_parse_plain_9x9(s, g, nt))
		return 0;
	grid_init(g, box);
	if ((size_t)g->cells != n) {
		snprintf(err, errsz, "%zu cells, expected %d", n, g->cells);
		return -1;
	}
	nt->style = NOTATION_CHARS;
	nt->blank = 0;
	nt->lower = false;
	nt->minus_one = false;
	if (g->side > GRID_MAX_CHAR_SIDE) {
		snprintf(err, errsz, "a %dx%d grid must be written as numbers", g->side, g->side);
		return -1;
	}
	bool hex = g->side == 16 && looks_hex(s, n);
	if (hex)
		nt->style = NOTATION_HEX;
	size_t i = 0;
	if (!hex) {
		/* the common case first, with a branch or two per cell: digits,
		 * and '.' or '0' for blanks; anything else goes the long way */
		for (; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '1';
			if (d < 9 && (int)d < g->side) {
				g->cell[i] = (uint8_t)(d + 1);
			} else if (s[i] == '.' || s[i] == '0') {
				if (!nt->blank)
					nt->blank = s[i];
			} else {
				break;
			}
		}
		if (i == n) {
			if (!nt->blank)
				nt->blank = '.';
			return 0;
		}
	}
	bool seen_upper = false, seen_lower = false;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int v;
		if (hex ? (c == '.' || c == '_' || c == '-') : is_blank_char(c)) {
			if (!nt->blank)
				nt->blank = (char)c;
			continue;
		}
		v = hex ? hex_value(c) : char_value(c);
		if (c >= 'a' && c <= 'z')
			seen_lower = true;
		else if (c >= 'A' && c <= 'Z')
			seen_upper = true;
		if (v == 0 || v > g->side) {
			/* row and column only here: a division per cell would cost
			 * more than the rest of the loop */
			int row = (int)i / g->side + 1, col = (int)i % g->side + 1;
			if (v > g->side)
				snprintf(err, errsz,
					 "'%c' at row %d, column %d is out of range for %dx%d (1-%c)", c, row,
					 col, g->side, g->side, max_char(g->side, nt));
			else if (c >= 0x21 && c < 0x7f)
				snprintf(err, errsz, "illegal character '%c' at row %d, column %d", c, row, col);
			else
				snprintf(err, errsz, "illegal byte 0x%02x at row %d, column %d", c, row, col);
			return -1;
		}
		g->cell[i] = (uint8_t)v;
	}
	nt->lower = seen_lower && !seen_upper;
	if (!nt->blank)
		nt->blank = '.';
	return 0;
}

/* Reads an integer token; returns the end, or NULL if s does not start with
 * one. Values are clamped well outside any grid so overflow can't happen. */
static const char *read_int(const char *s, const char *end, long *out)
{
	bool neg = false;
	long v = 0;
	const char *p = s;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end || *p < '0' || *p > '9')
		return NULL;
	while (p < end && *p >= '0' && *p <= '9') {
		if (v < 100000)
			v = v * 10 + (*p - '0');
		p++;
	}
	*out = neg ? -v : v;
	return p;
}

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Past the blanks and commas between numbers. */
static const char *skip_separators(const char *p, const char *end)
{
	while (p < end && (is_space(*p) || *p == ','))
		p++;
	return p;
}

/* True when the text is made only of integers separated by blanks or commas. */
bool grid_all_numbers(const char *s, const char *end, long *count)
{
	long k = 0;
	const char *p = s;
	while (p < end) {
		p = skip_separators(p, end);
		if (p == end)
			break;
		long v;
		const char *q = read_int(p, end, &v);
		if (!q || (q < end && !is_space(*q) && *q != ','))
			return false;
		k++;
		p = q;
	}
	*count = k;
	return k > 0;
}

/* Parses whitespace- or comma-separated numbers, row-major, for box size box
 * (already known to match the count). 0 or -1 is a blank. */
int grid_parse_numbers(const char *s, size_t n, int box, struct grid *g, struct notation *nt,
		       char *err, size_t errsz)
{
	const char *p = s, *end = s + n;
	int i = 0;
	grid_init(g, box);
	nt->style = NOTATION_NUMBERS;
	nt->blank = '.';
	nt->lower = false;
	nt->minus_one = false;
	while (p < end) {
		p = skip_separators(p, end);
		if (p == end)
			break;
		long v;
		const char *q = read_int(p, end, &v);
		if (!q) {
			snprintf(err, errsz, "not a number at cell %d", i + 1);
			return -1;
		}
		if (i >= g->cells) {
			snprintf(err, errsz, "more than %d numbers", g->cells);
			return -1;
		}
		if (v == -1) {
			nt->minus_one = true;
			v = 0;
		}
		if (v < 0 || v > g->side) {
			snprintf(err, errsz, "%ld at row %d, column %d is out of range for %dx%d (0-%d)",
				 v, i / g->side + 1, i % g->side + 1, g->side, g->side, g->side);
			return -1;
		}
		g->cell[i++] = (uint8_t)v;
		p = q;
	}
	if (i != g->cells) {
		snprintf(err, errsz, "%d numbers, expected %d", i, g->cells);
		return -1;
	}
	return 0;
}

int grid_parse(const char *text, size_t len, struct grid *g, struct notation *nt, char *err,
	       size_t errsz)
{
	const char *s = text, *end = text + len;
	while (s < end && is_space(*s))
		s++;
	while (end > s && is_space(end[-1]))
		end--;
	if (s == end) {
		snprintf(err, errsz, "empty puzzle");
		return -1;
	}
	size_t n = (size_t)(end - s);
	/* a plain 9x9 line, digits and '.', without the three scans for
	 * separators (it has none) */
	if (n == 81 && grid_parse_plain_9x9(s, g, nt))
		return 0;
	/* Numbers: any blank or comma between tokens means numbers (a line of
	 * characters has no separators). */
	bool separated = memchr(s, ',', n) || memchr(s, ' ', n) || memchr(s, '\t', n);
	if (separated) {
		long count;
		if (!grid_all_numbers(s, end, &count)) {
			snprintf(err, errsz, "a puzzle of numbers must hold only numbers");
			return -1;
		}
		int box = grid_box_for_cells(count);
		if (!box) {
			snprintf(err, errsz, "%ld numbers, expected %ld", count, grid_nearest_cells(count));
			return -1;
		}
		return grid_parse_numbers(s, n, box, g, nt, err, errsz);
	}
	int box = grid_box_for_cells((long)n);
	if (!box) {
		snprintf(err, errsz, "%zu cells, expected %ld", n, grid_nearest_cells((long)n));
		return -1;
	}
	return grid_parse_cells(s, n, box, g, nt, err, errsz);
}

static const char *unit_name[] = {"row", "column", "box"};

/* Names the first repeated value of unit u of a kind (0 rows, 1 columns,
 * 2 boxes) known to have one. */
static void describe_clash(const struct grid *g, int kind, int u, char *err, size_t errsz)
{
	const struct geometry *geo = geometry_get(g->box);
	const uint16_t *unit = geometry_unit(geo, kind * g->side + u);
	int first[GRID_MAX_SIDE + 1];
	memset(first, -1, sizeof first);
	for (int k = 0; k < g->side; k++) {
		int cell = unit[k], v = g->cell[cell];
		if (!v)
			continue;
		if (first[v] >= 0) {
			int cell0 = unit[first[v]];
			snprintf(err, errsz, "value %d twice in %s %d (row %d column %d, row %d column %d)", v,
				 unit_name[kind], u + 1, geometry_row(geo, cell0) + 1, geometry_col(geo, cell0) + 1,
				 geometry_row(geo, cell) + 1, geometry_col(geo, cell) + 1);
			return;
		}
		first[v] = k;
	}
}

/* grid_check_givens for 9x9, the common size: fixed bounds the compiler
 * unrolls, and each box's bits in a register along its part of a row.
 * Returns the first clash as grid_check_givens's loop finds it. */
static bool clash_9x9(const uint8_t *cell, int *bad_kind, int *bad_unit)
{
	uint16_t cols[9] = {0}, boxes[9] = {0};
	for (int r = 0; r < 9; r++) {
		uint16_t row = 0;
		for (int bc = 0; bc < 3; bc++) {
			int b = r / 3 * 3 + bc;
			uint16_t box = boxes[b];
			for (int c = 3 * bc; c < 3 * bc + 3; c++) {
				int v = cell[9 * r + c];
				uint16_t bit = (uint16_t)((v != 0) << ((v - 1) & 15));
				if ((row | cols[c] | box) & bit) {
					*bad_kind = (row & bit) ? 0 : (cols[c] & bit) ? 1 : 2;
					*bad_unit = (row & bit) ? r : (cols[c] & bit) ? c : b;
					return true;
				}
				row |= bit;
				cols[c] |= bit;
				box |= bit;
			}
			boxes[b] = box;
		}
	}
	return false;
}

/* A full 9x9 grid's check (grid_verify's, every answer): each unit must
 * hold all nine values, so an OR of one bit per value per unit suffices, and
 * a cell costs a load and two ORs of table words: the units' bits sit in
 * 16-bit lanes, rows in lanes 0-2 and the box in lane 3 of a word per box
 * column, the columns in lanes 0-2 of another. A nibble counter per value
 * per unit took 930 instructions a grid, this 334 (contrib/bench/code-notes.md). */
#define FULL_BIT(v) ((uint64_t)1 << (v) >> 1) /* 0 for a blank */
#define FULL_CELL(lane, box, v) (FULL_BIT(v) << 16 * (lane) | ((box) ? FULL_BIT(v) << 48 : 0))
#define FULL_TABLE(lane, box)                                                            \
	{                                                                                \
		FULL_CELL(lane, box, 0), FULL_CELL(lane, box, 1), FULL_CELL(lane, box, 2), \
		FULL_CELL(lane, box, 3), FULL_CELL(lane, box, 4), FULL_CELL(lane, box, 5), \
		FULL_CELL(lane, box, 6), FULL_CELL(lane, box, 7), FULL_CELL(lane, box, 8), \
		FULL_CELL(lane, box, 9),                                                 \
	}
/* [row in band]: the row's lane and the box's; [column in box]: its lane */
static const uint64_t full_row_box[3][10] = {FULL_TABLE(0, true), FULL_TABLE(1, true), FULL_TABLE(2, true)};
static const uint64_t full_col[3][10] = {FULL_TABLE(0, false), FULL_TABLE(1, false), FULL_TABLE(2, false)};

bool grid_full_ok_9x9(const uint8_t *cell)
{
	const uint64_t all = 0x01FF01FF01FF01FFull, low3 = 0x0000FFFFFFFFFFFFull;
	uint64_t col[3] = {0, 0, 0}, ok = all;
	for (int band = 0; band < 3; band++) {
		uint64_t rb[3] = {0, 0, 0};
#pragma GCC unroll 27
		for (int i = 0; i < 27; i++) {
			int v = cell[27 * band + i], c = i % 9;
			rb[c / 3] |= full_row_box[i / 9][v];
			col[c / 3] |= full_col[c % 3][v];
		}
		/* the rows: lanes 0-2 of the three words ORed; the boxes: each
		 * word's lane 3, all 0x1FF when their AND is (no lane holds a
		 * bit outside 0x1FF, so the AND over bands is all only when
		 * every band's is) */
		ok &= ((rb[0] | rb[1] | rb[2]) & low3) | (rb[0] & rb[1] & rb[2] & ~low3);
	}
	return ok == all && (col[0] & col[1] & col[2]) == (all & low3);
}

/* A 9x9 grid with blanks (the givens of every puzzle): each unit's one-hot
 * value bits both ORed and summed. Bits of distinct values add without a
 * carry, so a unit holds no value twice exactly when its sum is its OR; a
 * 16-bit lane holds nine 9-bit values' sum, and a blank adds 0. A cell's
 * bits sit in the lanes of a vector of a band's box column: its row's
 * (lanes 0-2, the row in the band), the box's (3), its column's (4-6, the
 * column in the box). A cell costs a byte load, a vector load, an OR and
 * an add (a nibble counter per value per unit took 930 instructions a
 * grid, this about 450). */
typedef uint16_t lanes8 __attribute__((vector_size(16)));
/* gcc regroups a chain of ORs (adds) into a tree, which with two-operand
 * SSE costs a copy a cell and spills (674 instructions a grid, not 564);
 * an empty asm that takes and gives back the chain's value keeps it one */
#if defined(__SSE2__) && !defined(__clang__)
#define GIVEN_CHAIN(x) __asm__("" : "+x"(x))
#else
#define GIVEN_CHAIN(x) ((void)0)
#endif
#define GIVEN_BIT(v) ((uint16_t)(1u << (v) >> 1)) /* 0 for a blank */
#define GIVEN_VEC(r, c, v)                                                                        \
	{                                                                                         \
		(r) == 0 ? GIVEN_BIT(v) : 0, (r) == 1 ? GIVEN_BIT(v) : 0, (r) == 2 ? GIVEN_BIT(v) : 0, \
		GIVEN_BIT(v), (c) == 0 ? GIVEN_BIT(v) : 0, (c) == 1 ? GIVEN_BIT(v) : 0,           \
		(c) == 2 ? GIVEN_BIT(v) : 0, 0,                                                   \
	}
#define GIVEN_VALUES(r, c)                                                                      \
	{                                                                                       \
		GIVEN_VEC(r, c, 0), GIVEN_VEC(r, c, 1), GIVEN_VEC(r, c, 2), GIVEN_VEC(r, c, 3), \
		GIVEN_VEC(r, c, 4), GIVEN_VEC(r, c, 5), GIVEN_VEC(r, c, 6), GIVEN_VEC(r, c, 7), \
		GIVEN_VEC(r, c, 8), GIVEN_VEC(r, c, 9),                                         \
	}
#define GIVEN_ROW(r) {GIVEN_VALUES(r, 0), GIVEN_VALUES(r, 1), GIVEN_VALUES(r, 2)}
/* [row in band][column in box][value] */
static const lanes8 given_bits[3][3][10] = {GIVEN_ROW(0), GIVEN_ROW(1), GIVEN_ROW(2)};

bool grid_givens_ok_9x9(const uint8_t *cell)
{
	/* first, 16 cells a step: every value at most 9 (one over goes to the
	 * slow check: v | v + 6 has a bit over 15 exactly then), and each a
	 * byte offset into given_bits, so that a cell's vector is found
	 * without a shift of its own (the shift of 16-bit lanes is exact for
	 * bytes up to 15) */
	typedef uint8_t bytes16 __attribute__((vector_size(16)));
	_Static_assert(sizeof(lanes8) == 1 << 4, "a cell's offset is its value shifted by 4");
	bytes16 over = {0};
	uint8_t offset[81];
#define GIVEN_OFFSETS(i)                                     \
	do {                                                 \
		bytes16 v_;                                  \
		memcpy(&v_, cell + (i), sizeof v_);          \
		over |= v_ | (v_ + 6);                       \
		lanes8 o_ = (lanes8)v_ << 4;                 \
		memcpy(offset + (i), &o_, sizeof o_);        \
	} while (0)
	GIVEN_OFFSETS(0);
	GIVEN_OFFSETS(16);
	GIVEN_OFFSETS(32);
	GIVEN_OFFSETS(48);
	GIVEN_OFFSETS(64);
	GIVEN_OFFSETS(65); /* the last cells, 65-80 */
#undef GIVEN_OFFSETS
	uint64_t over_words[2];
	memcpy(over_words, &over, sizeof over_words);
	if ((over_words[0] | over_words[1]) & 0xF0F0F0F0F0F0F0F0ull)
		return false;
	const lanes8 rows = {0xFFFF, 0xFFFF, 0xFFFF, 0, 0, 0, 0, 0}, box = {0, 0, 0, 0xFFFF, 0, 0, 0, 0},
		     cols = {0, 0, 0, 0, 0xFFFF, 0xFFFF, 0xFFFF, 0};
	/* [box column]: the columns' lanes go on from band to band */
	lanes8 or0 = {0}, or1 = {0}, or2 = {0}, sum0 = {0}, sum1 = {0}, sum2 = {0}, bad = {0};
	const char *base = (const char *)given_bits;
	/* one chain of ORs and one of adds per box column, written out: a
	 * loop's indices cost as much as the cells */
#define GIVEN_CELL(r, c, o, s)                                                                  \
	do {                                                                                    \
		lanes8 b_;                                                                      \
		memcpy(&b_, base + sizeof given_bits[0][0] * (3 * (r) + (c) % 3) + off[9 * (r) + (c)], \
		       sizeof b_);                                                              \
		o |= b_;                                                                        \
		s += b_;                                                                        \
		GIVEN_CHAIN(o);                                                                 \
		GIVEN_CHAIN(s);                                                                 \
	} while (0)
#define GIVEN_ROW_CELLS(r)                   \
	do {                                 \
		GIVEN_CELL(r, 0, or0, sum0); \
		GIVEN_CELL(r, 1, or0, sum0); \
		GIVEN_CELL(r, 2, or0, sum0); \
		GIVEN_CELL(r, 3, or1, sum1); \
		GIVEN_CELL(r, 4, or1, sum1); \
		GIVEN_CELL(r, 5, or1, sum1); \
		GIVEN_CELL(r, 6, or2, sum2); \
		GIVEN_CELL(r, 7, or2, sum2); \
		GIVEN_CELL(r, 8, or2, sum2); \
	} while (0)
	for (const uint8_t *off = offset; off < offset + 81; off += 27) {
		GIVEN_ROW_CELLS(0);
		GIVEN_ROW_CELLS(1);
		GIVEN_ROW_CELLS(2);
		/* the rows: summed and ORed over the three box columns; the
		 * boxes each its own; then their lanes start again */
		bad |= ((or0 | or1 | or2) ^ (sum0 + sum1 + sum2)) & rows;
		bad |= ((or0 ^ sum0) | (or1 ^ sum1) | (or2 ^ sum2)) & box;
		or0 &= cols;
		or1 &= cols;
		or2 &= cols;
		sum0 &= cols;
		sum1 &= cols;
		sum2 &= cols;
	}
#undef GIVEN_ROW_CELLS
#undef GIVEN_CELL
	bad |= ((or0 ^ sum0) | (or1 ^ sum1) | (or2 ^ sum2)) & cols;
	uint64_t words[2];
	memcpy(words, &bad, sizeof words);
	return (words[0] | words[1]) == 0;
}

int grid_check_givens(const struct grid *g, char *err, size_t errsz)
{
	if (g->box == 3) {
		int bad_kind, bad_unit;
		if (grid_givens_ok_9x9(g->cell) || !clash_9x9(g->cell, &bad_kind, &bad_unit))
			return 0;
		describe_clash(g, bad_kind, bad_unit, err, errsz);
		return -1;
	}
	/* one pass with a bitset per unit; the slow pass only to name a clash.
	 * Called twice per puzzle by every worker (givens, then the answer):
	 * only the units of this size are cleared, and no division or branch
	 * depends on the cell. */
	uint64_t cols[GRID_MAX_SIDE], boxes[GRID_MAX_SIDE];
	size_t units = sizeof cols[0] * (size_t)g->side;
	memset(cols, 0, units);
	memset(boxes, 0, units);
	uint8_t col_box[GRID_MAX_SIDE]; /* box column of each column */
	for (int c = 0, k = 0, bc = 0; c < g->side; c++) {
		col_box[c] = (uint8_t)bc;
		if (++k == g->box)
			k = 0, bc++;
	}
	int bad_kind = -1, bad_unit = 0;
	const uint8_t *cell = g->cell;
	for (int r = 0, box_row = 0; r < g->side && bad_kind < 0; r++) {
		if (r && r % g->box == 0)
			box_row += g->box;
		uint64_t row = 0;
		for (int c = 0; c < g->side; c++) {
			int v = cell[r * g->side + c];
			/* no branch on blanks: they are where branches mispredict */
			uint64_t bit = (uint64_t)(v != 0) << ((v - 1) & 63);
			int b = box_row + col_box[c];
			if ((row | cols[c] | boxes[b]) & bit) {
				if (row & bit)
					bad_kind = 0, bad_unit = r;
				else if (cols[c] & bit)
					bad_kind = 1, bad_unit = c;
				else
					bad_kind = 2, bad_unit = b;
				break;
			}
			row |= bit;
			cols[c] |= bit;
			boxes[b] |= bit;
		}
	}
	if (bad_kind < 0)
		return 0;
	describe_clash(g, bad_kind, bad_unit, err, errsz);
	return -1;
}

size_t grid_format_max(int side)
{
	/* numbers: up to 2 digits (or "-1") and a separator per cell */
	return (size_t)side * (size_t)side * 3 + 1;
}

int grid_format(const struct grid *g, const struct notation *nt, char *buf, size_t bufsz)
{
	size_t pos = 0;
	if (nt->style == NOTATION_NUMBERS || g->side > GRID_MAX_CHAR_SIDE) {
		for (int i = 0; i < g->cells; i++) {
			char tmp[8];
			int v = g->cell[i];
			int k = snprintf(tmp, sizeof tmp, "%s%d", i ? " " : "",
					 v == 0 && nt->style == NOTATION_NUMBERS && nt->minus_one ? -1 : v);
			if (pos + (size_t)k + 1 > bufsz)
				return -1;
			memcpy(buf + pos, tmp, (size_t)k);
			pos += (size_t)k;
		}
	} else {
		if ((size_t)g->cells + 1 > bufsz)
			return -1;
		if (g->side <= 9 && nt->style == NOTATION_CHARS) {
			/* digits: '0' + value, the blank for 0, '?' above the side
			 * (as the table below), 16 cells a step rather than a look-up
			 * a cell: every 9x9 answer comes through here
			 * (contrib/bench/code-notes.md) */
			typedef uint8_t bytes16 __attribute__((vector_size(16)));
			/* in locals: buf may alias g and nt for the compiler, which
			 * then read them again and broadcast the blank anew every
			 * step (a third of the loop) */
			const int cells = g->cells, side_n = g->side;
			const char blank_char = nt->blank;
			const bytes16 zero = {0}, side = zero + (uint8_t)side_n,
				      blanks = zero + (uint8_t)blank_char;
			int i = 0;
			for (; i + 16 <= cells; i += 16) {
				bytes16 v, c;
				memcpy(&v, g->cell + i, sizeof v);
				bytes16 blank = (bytes16)(v == zero), over = (bytes16)(v > side);
				c = (v + '0') & ~blank & ~over;
				c |= (blank & blanks) | (over & (uint8_t)'?');
				memcpy(buf + i, &c, sizeof c);
			}
			for (; i < cells; i++) {
				int v = g->cell[i];
				buf[i] = v > side_n ? '?' : v ? (char)('0' + v) : blank_char;
			}
			buf[cells] = '\0';
			return cells;
		}
		/* a character per value, looked up: value_char per cell was a
		 * tenth of the racer's time on easy puzzles */
		char chars[64];
		memset(chars, '?', sizeof chars);
		chars[0] = nt->blank;
		for (int v = 1; v <= g->side; v++)
			chars[v] = value_char(v, nt);
		for (int i = 0; i < g->cells; i++)
			buf[i] = chars[g->cell[i] & 63];
		pos = (size_t)g->cells;
	}
	buf[pos] = '\0';
	return (int)pos;
}

size_t grid_format_pretty_max(int side)
{
	/* each cell: up to 2 digits and a blank; plus box bars; rows plus box rules */
	size_t width = (size_t)side * 3 + (size_t)side + 4;
	return width * ((size_t)side * 2 + 2) + 1;
}

int grid_format_pretty(const struct grid *g, const struct notation *nt, char *buf, size_t bufsz)
{
	size_t pos = 0;
	bool numbers = nt->style == NOTATION_NUMBERS || g->side > GRID_MAX_CHAR_SIDE;
	int w = numbers && g->side >= 10 ? 2 : 1;
#define PUT(...)                                                                 \
	do {                                                                     \
		int k_ = snprintf(buf + pos, pos < bufsz ? bufsz - pos : 0, __VA_ARGS__); \
		if (k_ < 0 || pos + (size_t)k_ >= bufsz)                        \
			return -1;                                               \
		pos += (size_t)k_;                                               \
	} while (0)
	for (int r = 0; r <= g->side; r++) {
		if (r % g->box == 0) {
			for (int b = 0; b < g->box; b++) {
				PUT("+");
				for (int k = 0; k < g->box * (w + 1) + 1; k++)
					PUT("-");
			}
			PUT("+\n");
		}
		if (r == g->side)
			break;
		for (int c = 0; c < g->side; c++) {
			if (c % g->box == 0)
				PUT("%s", c ? " |" : "|");
			int v = g->cell[r * g->side + c];
			if (numbers)
				PUT(" %*d", w, v);
			else
				PUT(" %c", v ? value_char(v, nt) : nt->blank);
		}
		PUT(" |\n");
	}
#undef PUT
	return (int)pos;
}

bool grid_verify(const struct grid *puzzle, const struct grid *solution, char *why, size_t whysz)
{
	char dummy[GRID_ERR_MAX];
	if (!why) {
		why = dummy;
		whysz = sizeof dummy;
	}
	if (solution->box != puzzle->box) {
		snprintf(why, whysz, "a %dx%d answer to a %dx%d puzzle", solution->side, solution->side,
			 puzzle->side, puzzle->side);
		return false;
	}
	/* a first pass 16 cells a step, with no branch per cell (every answer
	 * is verified: contrib/bench/code-notes.md); the loop below names the
	 * problem, when there is one */
	typedef uint8_t bytes16 __attribute__((vector_size(16)));
	const bytes16 zero = {0}, side = zero + (uint8_t)puzzle->side; /* at most 64 */
	bytes16 bad = zero;
	int i = 0;
	for (; i + 16 <= puzzle->cells; i += 16) {
		bytes16 v, given;
		memcpy(&v, solution->cell + i, sizeof v);
		memcpy(&given, puzzle->cell + i, sizeof given);
		bad |= (bytes16)(v == zero) | (bytes16)(v > side) |
		       ((bytes16)(given != zero) & (bytes16)(given != v));
	}
	/* two words, not sixteen lanes one by one (100 instructions) */
	uint64_t bad_words[2];
	memcpy(bad_words, &bad, sizeof bad_words);
	bool clean = (bad_words[0] | bad_words[1]) == 0;
	for (; clean && i < puzzle->cells; i++) {
		int v = solution->cell[i];
		clean = v >= 1 && v <= puzzle->side && (!puzzle->cell[i] || puzzle->cell[i] == v);
	}
	for (i = 0; !clean && i < puzzle->cells; i++) {
		int v = solution->cell[i];
		if (v < 1 || v > puzzle->side) {
			snprintf(why, whysz, "row %d, column %d is not filled", i / puzzle->side + 1,
				 i % puzzle->side + 1);
			return false;
		}
		if (puzzle->cell[i] && puzzle->cell[i] != v) {
			snprintf(why, whysz, "row %d, column %d changes the given %d to %d",
				 i / puzzle->side + 1, i % puzzle->side + 1, puzzle->cell[i], v);
			return false;
		}
	}
	/* A full grid whose rows, columns and boxes hold no value twice is a
	 * solution: each unit has N cells and N distinct values. A 9x9 one
	 * that fails the quick check goes on to name its clash. */
	if (solution->box == 3 && grid_full_ok_9x9(solution->cell))
		return true;
	if (grid_check_givens(solution, why, whysz) < 0)
		return false;
	return true;
}

/* Unit tests: grid notation, givens check, verification, hash. */
#include "config.h"

#include <stdlib.h>

#include "lib/grid.h"
#include "lib/grid_internal.h"
#include "tap.h"

static const char *easy =
	"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
static const char *easy_solution =
	"417369825632158947958724316825437169791586432346912758289643571573291684164875293";

static int parse(const char *s, struct grid *g, struct notation *nt, char *err)
{
	return grid_parse(s, strlen(s), g, nt, err, GRID_ERR_MAX);
}

/* A fixed xorshift: the same grids every run. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

/* Whether grid_full_ok_9x9 and grid_verify's answer for full grid sol (its
 * cells 1 to 9) agree with grid_check_givens, the slow path: the same
 * verdict and, on a clash, the same words. */
static bool full_agrees(const struct grid *blank, const struct grid *sol)
{
	char slow[GRID_ERR_MAX] = "", fast[GRID_ERR_MAX] = "";
	bool slow_ok = grid_check_givens(sol, slow, sizeof slow) == 0;
	bool fast_ok = grid_full_ok_9x9(sol->cell);
	bool verified = grid_verify(blank, sol, fast, sizeof fast);
	return fast_ok == slow_ok && verified == slow_ok && strcmp(fast, slow) == 0;
}

/* Whether no value is twice in a row, column or box of 9x9 cells, counted
 * the plain way: the reference for grid_givens_ok_9x9. */
static bool naive_givens_ok(const uint8_t *cell)
{
	for (int u = 0; u < 9; u++) {
		int row[16] = {0}, col[16] = {0}, box[16] = {0};
		for (int k = 0; k < 9; k++) {
			int r = u / 3 * 3 + k / 3, c = u % 3 * 3 + k % 3;
			row[cell[9 * u + k] & 15]++;
			col[cell[9 * k + u] & 15]++;
			box[cell[9 * r + c] & 15]++;
		}
		for (int v = 1; v < 16; v++)
			if (row[v] > 1 || col[v] > 1 || box[v] > 1)
				return false;
	}
	return true;
}

/* Whether grid_givens_ok_9x9 and grid_check_givens on g (a 9x9 grid with
 * blanks) agree with the reference; a clash is named. */
static bool givens_agree(const struct grid *g)
{
	char err[GRID_ERR_MAX] = "";
	bool want = naive_givens_ok(g->cell);
	bool checked = grid_check_givens(g, err, sizeof err) == 0;
	return grid_givens_ok_9x9(g->cell) == want && checked == want &&
	       (want ? err[0] == '\0' : strncmp(err, "value ", 6) == 0);
}

/* A valid grid moved to another valid one: the values relabelled, two rows
 * of a band or two bands swapped, or the grid transposed. */
static void shuffle_valid(struct grid *g)
{
	uint8_t t[81], map[10];
	for (int v = 0; v <= 9; v++)
		map[v] = (uint8_t)v;
	for (int v = 9; v > 1; v--) {
		int k = 1 + (int)rnd((unsigned)v);
		uint8_t x = map[v];
		map[v] = map[k];
		map[k] = x;
	}
	for (int i = 0; i < 81; i++)
		t[i] = map[g->cell[i]];
	int band = (int)rnd(3), a = 3 * band + (int)rnd(3), b = 3 * band + (int)rnd(3);
	for (int c = 0; c < 9; c++) {
		uint8_t x = t[9 * a + c];
		t[9 * a + c] = t[9 * b + c];
		t[9 * b + c] = x;
	}
	int ba = (int)rnd(3), bb = (int)rnd(3);
	for (int i = 0; i < 27; i++) {
		uint8_t x = t[27 * ba + i];
		t[27 * ba + i] = t[27 * bb + i];
		t[27 * bb + i] = x;
	}
	bool transpose = rnd(2);
	for (int r = 0; r < 9; r++)
		for (int c = 0; c < 9; c++)
			g->cell[9 * r + c] = transpose ? t[9 * c + r] : t[9 * r + c];
}

int main(void)
{
	union grid_room g_room;
	union grid_room h_room;
	union grid_room sol_room;
	struct grid *g = &g_room.grid, *h = &h_room.grid, *sol = &sol_room.grid;
	struct notation nt, nt2;
	char err[GRID_ERR_MAX], buf[GRID_MAX_CELLS * 3 + 1];

	ok(parse(easy, g, &nt, err) == 0, "a 9x9 line parses");
	ok(g->box == 3 && g->side == 9 && g->cells == 81, "its size is 9x9");
	ok(g->cell[0] == 4 && g->cell[1] == 0 && g->cell[6] == 8, "cells hold values and blanks");
	ok(nt.style == NOTATION_CHARS && nt.blank == '.', "notation: characters, '.' blank");
	grid_format(g, &nt, buf, sizeof buf);
	is_str(buf, easy, "formatting gives the line back");

	char zeros[82];
	for (int i = 0; i < 81; i++)
		zeros[i] = easy[i] == '.' ? '0' : easy[i];
	zeros[81] = 0;
	ok(parse(zeros, h, &nt2, err) == 0 && nt2.blank == '0', "'0' blanks");
	ok(memcmp(g->cell, h->cell, 81) == 0, "same cells with '0' blanks");
	grid_format(h, &nt2, buf, sizeof buf);
	is_str(buf, zeros, "'0' blanks come back as '0'");
	char unders[82];
	for (int i = 0; i < 81; i++)
		unders[i] = easy[i] == '.' ? '_' : easy[i];
	unders[81] = 0;
	/* not a plain line: the one-pass read fails part way, the general one
	 * reads it from a blank grid */
	ok(parse(unders, h, &nt2, err) == 0 && nt2.blank == '_' && memcmp(g->cell, h->cell, 81) == 0,
	   "'_' blanks: the same cells");
	h->cell[80] = 12; /* not a 9x9 value: '?', in the last, unaligned cell too */
	h->cell[15] = 10;
	grid_format(h, &nt2, buf, sizeof buf);
	ok(buf[80] == '?' && buf[15] == '?' && buf[81] == '\0', "a value above the side is '?'");
	memcpy(h->cell, g->cell, 81);
	ok(grid_hash(g).low == grid_hash(h).low && grid_hash(g).high == grid_hash(h).high,
	   "two notations of one puzzle hash the same");
	h->cell[1] = 1;
	ok(grid_hash(g).low != grid_hash(h).low, "another puzzle hashes differently");

	ok(parse("  \t4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\r",
		 h, &nt2, err) == 0,
	   "CR and surrounding blanks are stripped");

	ok(parse("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4.....", h,
		 &nt2, err) < 0,
	   "80 cells are rejected");
	is_str(err, "80 cells, expected 81", "with a message naming the count");
	ok(parse("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4.....!", h,
		 &nt2, err) < 0,
	   "an illegal character is rejected");
	is_str(err, "illegal character '!' at row 9, column 9", "with its place");
	ok(parse("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4.....A", h,
		 &nt2, err) < 0,
	   "a value above 9 in a 9x9 is rejected");
	is_str(err, "'A' at row 9, column 9 is out of range for 9x9 (1-9)", "with the range");

	/* 4x4 and letters */
	ok(parse("1.3..4.2.1..3..1", h, &nt2, err) == 0 && h->box == 2, "a 4x4 line");
	const char *l16 = "G...............................................................................................................................................................................................................................................................";
	ok(parse(l16, h, &nt2, err) == 0 && h->box == 4 && h->cell[0] == 16, "16x16: G is 16");
	char hex[257];
	memset(hex, '.', 256);
	hex[256] = 0;
	hex[0] = '0';
	hex[1] = 'F';
	ok(parse(hex, h, &nt2, err) == 0 && nt2.style == NOTATION_HEX, "16x16 hex style");
	ok(h->cell[0] == 1 && h->cell[1] == 16, "hex: 0 is 1, F is 16");
	grid_format(h, &nt2, buf, sizeof buf);
	is_str(buf, hex, "hex answers come back in hex");
	hex[0] = 'a';
	hex[1] = 'b';
	ok(parse(hex, h, &nt2, err) == 0 && nt2.style == NOTATION_CHARS && nt2.lower,
	   "lower-case letters are kept lower case");
	ok(h->cell[0] == 10 && h->cell[1] == 11, "a is 10");

	/* numbers */
	char nums[1024] = "";
	for (int i = 0; i < 81; i++) {
		char t[8];
		snprintf(t, sizeof t, "%s%d", i ? " " : "", easy[i] == '.' ? -1 : easy[i] - '0');
		strcat(nums, t);
	}
	ok(parse(nums, h, &nt2, err) == 0 && nt2.style == NOTATION_NUMBERS && nt2.minus_one,
	   "numbers with -1 blanks");
	ok(memcmp(g->cell, h->cell, 81) == 0, "numbers give the same cells");
	ok(parse("1,0,3,0, 0,4,0,2, 0,1,0,0, 3,0,0,1", h, &nt2, err) == 0 && h->box == 2,
	   "comma-separated numbers");
	ok(parse("1 0 3 0 0 4 0 2 0 1 0 0 3 0 0 5", h, &nt2, err) < 0, "5 in a 4x4 is rejected");
	is_str(err, "5 at row 4, column 4 is out of range for 4x4 (0-4)", "with its place");
	ok(parse("1 2 3", h, &nt2, err) < 0, "three numbers are rejected");
	is_str(err, "3 numbers, expected 16", "with the count");
	ok(parse("1 2 x", h, &nt2, err) < 0, "a word among numbers is rejected");

	/* a 36x36 grid must be numbers; numbers of 36x36 parse */
	char *big = malloc(1296 * 3 + 1);
	big[0] = 0;
	for (int i = 0; i < 1296; i++)
		strcat(big, i ? " 0" : "36");
	ok(parse(big, h, &nt2, err) == 0 && h->box == 6 && h->cell[0] == 36, "a 36x36 grid of numbers");
	free(big);

	/* size limit: a huge line is refused without building a grid */
	char *huge = malloc(1 << 20);
	memset(huge, '.', (1 << 20) - 1);
	huge[(1 << 20) - 1] = 0;
	ok(parse(huge, h, &nt2, err) < 0, "a 1 MB line is refused");
	free(huge);

	/* givens */
	ok(parse(easy, h, &nt2, err) == 0 && grid_check_givens(h, err, sizeof err) == 0,
	   "the easy puzzle's givens do not clash");
	h->cell[2] = 4;
	ok(grid_check_givens(h, err, sizeof err) < 0, "two 4s in row 1 clash");
	is_str(err, "value 4 twice in row 1 (row 1 column 1, row 1 column 3)", "named by value and row");
	parse(easy, h, &nt2, err);
	h->cell[9 * 3] = 4;
	ok(grid_check_givens(h, err, sizeof err) < 0, "two 4s in column 1 clash");
	is_str(err, "value 4 twice in column 1 (row 1 column 1, row 4 column 1)", "named by column");
	parse(easy, h, &nt2, err);
	h->cell[10] = 4;
	grid_check_givens(h, err, sizeof err);
	is_str(err, "value 4 twice in box 1 (row 1 column 1, row 2 column 2)", "named by box");
	grid_init(h, 3); /* the highest value in the last box: the 9x9 path's last counter */
	h->cell[60] = h->cell[80] = 9;
	ok(grid_check_givens(h, err, sizeof err) < 0, "two 9s in box 9 clash");
	is_str(err, "value 9 twice in box 9 (row 7 column 7, row 9 column 9)", "named by box");
	h->cell[80] = 8;
	ok(grid_check_givens(h, err, sizeof err) == 0, "a 9 and an 8 in box 9 do not");

	/* verification */
	ok(parse(easy_solution, sol, &nt2, err) == 0, "the solution parses");
	ok(grid_verify(g, sol, err, sizeof err), "the solution verifies");
	sol->cell[0] = 1;
	ok(!grid_verify(g, sol, err, sizeof err), "a changed given fails");
	is_str(err, "row 1, column 1 changes the given 4 to 1", "and says which");
	parse(easy_solution, sol, &nt2, err);
	uint8_t t = sol->cell[1];
	sol->cell[1] = sol->cell[2];
	sol->cell[2] = t;
	ok(grid_verify(g, sol, err, sizeof err) == 0, "a swap breaks the columns");
	sol->cell[1] = 0;
	ok(!grid_verify(g, sol, err, sizeof err), "a blank fails");
	parse(easy_solution, sol, &nt2, err);
	sol->cell[80] = 0; /* past the last 16 cells of grid_verify's first pass */
	ok(!grid_verify(g, sol, err, sizeof err), "a blank in the last cell fails");
	is_str(err, "row 9, column 9 is not filled", "and says where");
	sol->cell[80] = 10;
	ok(!grid_verify(g, sol, err, sizeof err), "a 10 in a 9x9 fails");

	/* grid_verify's 9x9 fast path against grid_check_givens */
	union grid_room blank_room, wrong_room;
	struct grid *blank = &blank_room.grid, *wrong = &wrong_room.grid;
	grid_init(blank, 3);
	parse(easy_solution, sol, &nt2, err);
	bool all_valid = true, all_agree = true;
	int clashes = 0;
	for (int n = 0; n < 3000; n++) {
		shuffle_valid(sol);
		all_valid &= grid_full_ok_9x9(sol->cell) && full_agrees(blank, sol);
		grid_copy(wrong, sol);
		/* one to three cells changed: a value again in a row, column or box */
		for (int k = 0, changes = 1 + (int)rnd(3); k < changes; k++) {
			if (rnd(2)) {
				int a = (int)rnd(81), b = (int)rnd(81);
				uint8_t x = wrong->cell[a];
				wrong->cell[a] = wrong->cell[b];
				wrong->cell[b] = x;
			} else {
				wrong->cell[rnd(81)] = (uint8_t)(1 + rnd(9));
			}
		}
		all_agree &= full_agrees(blank, wrong);
		clashes += grid_check_givens(wrong, err, sizeof err) < 0;
	}
	ok(all_valid, "3000 valid grids pass the fast check and verify");
	ok(all_agree && clashes > 2000, "3000 changed grids: the fast check agrees with the slow one (%d clash)",
	   clashes);
	/* grid_check_givens's 9x9 fast path, on grids with blanks: valid ones
	 * (a solution's cells left out) and ones with a value again */
	bool partial_agree = true;
	int partial_clashes = 0;
	for (int n = 0; n < 3000; n++) {
		shuffle_valid(sol);
		grid_copy(wrong, sol);
		for (int i = 0, keep = 1 + (int)rnd(81); i < 81; i++)
			if ((int)rnd(81) >= keep)
				wrong->cell[i] = 0;
		partial_agree &= naive_givens_ok(wrong->cell) && givens_agree(wrong);
		for (int k = 0, changes = 1 + (int)rnd(2); k < changes; k++)
			wrong->cell[rnd(81)] = (uint8_t)(1 + rnd(9));
		partial_agree &= givens_agree(wrong);
		partial_clashes += !naive_givens_ok(wrong->cell);
	}
	ok(partial_agree && partial_clashes > 500,
	   "3000 grids with blanks, valid and changed: the fast givens check agrees (%d clash)", partial_clashes);
	grid_init(wrong, 3);
	ok(grid_givens_ok_9x9(wrong->cell) && givens_agree(wrong), "a blank grid has no clash");
	wrong->cell[80] = 9;
	wrong->cell[72] = 9;
	ok(!grid_givens_ok_9x9(wrong->cell) && givens_agree(wrong), "two 9s in the last row clash");
	grid_init(wrong, 3);
	wrong->cell[40] = 10;
	ok(!grid_givens_ok_9x9(wrong->cell) && grid_check_givens(wrong, err, sizeof err) == 0,
	   "a 10 goes to the slow check, which finds no clash");
	wrong->cell[44] = 10;
	ok(grid_check_givens(wrong, err, sizeof err) < 0, "two 10s in a row clash");
	/* one unit at a time: a value repeated in a row, a column, a box */
	parse(easy_solution, sol, &nt2, err);
	grid_copy(wrong, sol);
	wrong->cell[0] = wrong->cell[3]; /* row 1 holds 3 twice */
	ok(!grid_full_ok_9x9(wrong->cell) && full_agrees(blank, wrong), "a value twice in a row");
	grid_verify(blank, wrong, err, sizeof err);
	is_str(err, "value 3 twice in row 1 (row 1 column 1, row 1 column 4)", "named as before");
	grid_copy(wrong, sol);
	wrong->cell[9 * 8] = wrong->cell[9 * 4]; /* column 1 holds 7 twice */
	ok(!grid_full_ok_9x9(wrong->cell) && full_agrees(blank, wrong), "a value twice in a column");
	grid_copy(wrong, sol);
	wrong->cell[80] = wrong->cell[60]; /* box 9 holds 5 twice */
	ok(!grid_full_ok_9x9(wrong->cell) && full_agrees(blank, wrong), "a value twice in a box");
	/* every row and column whole, the boxes not: a cyclic Latin square */
	static const char *latin =
		"123456789234567891345678912456789123567891234678912345789123456891234567912345678";
	parse(latin, wrong, &nt2, err);
	ok(!grid_full_ok_9x9(wrong->cell) && full_agrees(blank, wrong), "a Latin square fails on its boxes");
	grid_verify(blank, wrong, err, sizeof err);
	is_str(err, "value 2 twice in box 1 (row 1 column 2, row 2 column 1)", "named by box");
	grid_copy(wrong, sol);
	wrong->cell[40] = 0;
	ok(!grid_verify(blank, wrong, err, sizeof err), "a zero fails");
	is_str(err, "row 5, column 5 is not filled", "before any check of the units");
	grid_copy(wrong, sol);
	wrong->cell[8] = wrong->cell[8] % 9 + 1;
	ok(!grid_verify(g, wrong, err, sizeof err), "a changed given fails");
	is_str(err, "row 1, column 9 changes the given 5 to 6", "before any check of the units");

	/* pretty */
	char pretty[4096];
	ok(grid_format_pretty(g, &nt, pretty, sizeof pretty) > 0 && strstr(pretty, "| 4 . . |"),
	   "a boxed grid for people");
	char hexout[GRID_HASH_HEX];
	grid_hash_hex(grid_hash(g), hexout);
	ok(strlen(hexout) == 32, "the hash prints as 32 hex digits");
	return tap_done();
}

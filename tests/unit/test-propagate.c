/* Unit tests: propagate.c on strict boards (the search's) and tolerant ones
 * (the ants', which go on past contradictions). On a puzzle without
 * contradictions both reach the same fixpoint, after the givens and after
 * each choice of a search; a contradiction is found by both. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/grid.h"
#include "tap.h"
#include "workers/propagate.h"

static const char *puzzles[] = {
	/* 9x9, forum_hardest_1905_11+ and 1106 */
	"98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6",
	"98.76.5..5..4..6...4...5.3.7..6..9......8.........4..21......9..791....6..5...1..",
	"1...567.....1....6..9....1...5..83..7..5...9..3...........4...25..6...7...4.2.8..",
	/* 16x16 and 25x25 that need some search: ACS general instances
	 * inst16x16_40_63 and inst25x25_50_3 */
	"...3....D..2..1..49.FA...1..ED.2.....53....EF.C.......D..C...93.E.12.4.BA..C8F......"
	"..F2....3C...84F67.A3..91...3...18.EFB....6...61A.795...G.4..3.A...........549...C5."
	"..3...B1........4.1A....1....G.482659..B82....A.G7...4...6.9.18..EF4...DGC.4.F.693.."
	".1.E",
	"...N.4..8LE.H.......O.D.7J.56.KO..BM..4.1.H...C8....K7P.6N.DO..J.FE.98L....O.E...M.H"
	"FG.98.L3.....46NL.8.HC....B.DA..G45.KJ1..G.7..B.EJ.I5K.HN.....LM8..5D.JH...O........"
	".....C...P4.L..73....9I2.K..1..F.NAL..8KMPD.O...J.E9H274B...O..C9..72P..A..D.JK5G..F"
	"...7..L.4I..6..915PMC....LC..4..8...E.2..O.F.I.J1J.G.6.PD.H7MCO8.N....K9.PK.M8F.HCE."
	"A12.........3.NHOB.9325K....P.MC...AL7.9..57.H......LB..IF..8P.D......F5....G...H..1"
	"M.JL...G.3.KB4.JF...E.O.C..N.5ML.HOPAC9N...I8.D5..63..KEC.P.DL8..3.N.5G9.A...FB...13"
	".E.GK2.HA7..4B....9.O..4JC...651...KPO.G.8IA..7P6...94...8.D.CL1H.5.EKMF.NKEA.M.C5B."
	"..9..234.H.1DO.9A.P..H.4.N.K.F7I..2..",
	/* 4x4 */
	"1...........4...",
};

static bool same_board(const struct cp_board *a, const struct cp_board *b)
{
	return a->fixed == b->fixed &&
	       memcmp(a->cand, b->cand, sizeof *a->cand * (size_t)a->cells) == 0 &&
	       memcmp(a->value, b->value, (size_t)a->cells) == 0;
}

/* The first open cell with the fewest values, as the search takes it. */
static int mrv_cell(const struct cp_board *b)
{
	int best = -1, best_n = 65;
	for (int i = 0; i < b->cells; i++) {
		if (!b->value[i] && cp_popcount(b->cand[i]) < best_n) {
			best_n = cp_popcount(b->cand[i]);
			best = i;
		}
	}
	return best;
}

int main(void)
{
	for (size_t p = 0; p < sizeof puzzles / sizeof *puzzles; p++) {
		union grid_room g_room;
		struct grid *g = &g_room.grid;
		struct notation nt;
		char err[GRID_ERR_MAX];
		struct cp_board strict, tolerant, again;
		if (grid_parse(puzzles[p], strlen(puzzles[p]), g, &nt, err, sizeof err) < 0) {
			ok(0, "puzzle %zu parses: %s", p, err);
			continue;
		}
		if (cp_board_alloc(&strict, g->box) < 0 || cp_board_alloc(&tolerant, g->box) < 0 ||
		    cp_board_alloc(&again, g->box) < 0)
			abort();
		cp_set_tolerant(&tolerant, true);
		int rs = cp_board_load(&strict, g), rt = cp_board_load(&tolerant, g);
		ok(rs == 0 && rt == 0, "puzzle %zu: the givens propagate on both boards", p);
		ok(same_board(&strict, &tolerant), "puzzle %zu: the same fixpoint after the givens", p);

		/* follow the search's first branch, then its sibling on a
		 * contradiction, comparing the two boards at each step */
		int steps = 0, same = 0, failures = 0, failures_agree = 0;
		while (strict.fixed < strict.cells && steps < 200) {
			int cell = mrv_cell(&strict);
			uint64_t values = strict.cand[cell];
			bool moved = false;
			for (; values; values &= values - 1) {
				int v = cp_first_value(values);
				struct cp_board s2, t2;
				if (cp_board_alloc(&s2, g->box) < 0 || cp_board_alloc(&t2, g->box) < 0)
					abort();
				cp_board_copy(&s2, &strict);
				cp_board_copy(&t2, &tolerant);
				int a = cp_assign(&s2, cell, v);
				cp_assign(&t2, cell, v);
				steps++;
				if (a < 0) {
					failures++;
					failures_agree += t2.failed;
				} else {
					same += !t2.failed && same_board(&s2, &t2);
					cp_board_copy(&strict, &s2);
					cp_board_copy(&tolerant, &t2);
					moved = true;
				}
				cp_board_free(&s2);
				cp_board_free(&t2);
				if (moved)
					break;
			}
			if (!moved)
				break; /* a dead end on the first branch: enough */
		}
		ok(same == steps - failures, "puzzle %zu: the same fixpoint after each of %d choices", p,
		   steps - failures);
		ok(failures_agree == failures, "puzzle %zu: both boards find the %d contradictions", p,
		   failures);

		/* counts rebuilt when a tolerant board becomes strict */
		cp_board_load(&strict, g);
		cp_board_copy(&again, &strict);
		cp_set_tolerant(&again, true);
		cp_set_tolerant(&again, false);
		int cell = mrv_cell(&strict), a = 0, b = 0;
		if (cell >= 0) { /* not solved by the givens alone */
			int v = cp_first_value(strict.cand[cell]);
			a = cp_assign(&strict, cell, v);
			b = cp_assign(&again, cell, v);
		}
		ok(a == b && same_board(&strict, &again),
		   "puzzle %zu: a board made strict again propagates as one that always was", p);

		cp_board_free(&strict);
		cp_board_free(&tolerant);
		cp_board_free(&again);
	}
	return tap_done();
}

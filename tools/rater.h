/* A difficulty a person recognises (rater.c): the techniques a human needs
 * to solve a puzzle, easiest first, and the guesses when they run out. */
#ifndef SUDOKU_TOOLS_RATER_H
#define SUDOKU_TOOLS_RATER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/grid.h"

/* The techniques, easiest first: the order the rater tries them in. */
enum technique {
	TECH_NAKED_SINGLE,
	TECH_HIDDEN_SINGLE,
	TECH_POINTING,
	TECH_CLAIMING,
	TECH_NAKED_PAIR,
	TECH_HIDDEN_PAIR,
	TECH_NAKED_TRIPLE,
	TECH_HIDDEN_TRIPLE,
	TECH_X_WING,
	TECH_XY_WING,
	TECH_SWORDFISH,
	TECH_NAKED_QUAD,
	TECH_HIDDEN_QUAD,
	TECH_JELLYFISH,
	TECH_GUESS, /* not a technique: trial and error */
	TECH_COUNT
};

/* The scale: 1 simple (naked singles), 2 easy (hidden singles),
 * 3 intermediate (locked candidates, naked and hidden pairs), 4 hard
 * (triples, quads, X-wing, swordfish, jellyfish, XY-wing), 5 expert (a
 * guess, each of whose values the techniques settle), 6 extreme (guesses
 * within guesses). Levels 1 to 3 are qqwing's simple, easy and
 * intermediate; qqwing calls 4 to 6 expert. */
enum {
	LEVEL_NONE,
	LEVEL_SIMPLE,
	LEVEL_EASY,
	LEVEL_INTERMEDIATE,
	LEVEL_HARD,
	LEVEL_EXPERT,
	LEVEL_EXTREME,
	LEVEL_COUNT
};

struct rate_options {
	int max_level;         /* use no technique above this level, and do not
				* guess below LEVEL_EXPERT (LEVEL_EXTREME: all) */
	uint64_t max_guesses;  /* bound of the guesses' search (0: none) */
};

struct rating {
	int level;              /* LEVEL_SIMPLE..LEVEL_EXTREME; LEVEL_NONE when
				 * not solved within max_level, or no or several
				 * solutions */
	enum technique hardest; /* the hardest technique used (TECH_GUESS for
				 * levels 5 and 6; TECH_COUNT: none, a full
				 * grid) */
	enum technique hardest_logic; /* the hardest before the first guess
				       * (TECH_COUNT: none) */
	long uses[TECH_COUNT];  /* each technique's successful uses before the
				 * first guess; uses[TECH_GUESS]: the guesses */
	int depth;              /* guesses within guesses: 0 when the
				 * techniques solve it, 1 for expert */
	int solutions;          /* 0, 1, or 2 for "two or more" (when the
				 * search ran; else 1 when solved by logic, 0
				 * when not) */
	bool bounded;           /* the search hit max_guesses: extreme, its
				 * guesses at least that many */
	GRID_MEMBER(solution);  /* when solutions >= 1; last */
};

/* The bound of guesses sudoku-rate and sudoku-generate use by default:
 * 10000 on 9x9, fewer on larger grids, whose guesses cost about their
 * cells more. */
static inline uint64_t rate_default_guesses(int cells)
{
	return cells > 81 ? 10000ULL * 81 / (uint64_t)cells : 10000;
}

/* Rates puzzle (box 2..8, givens that may clash). Returns 0 when rated
 * (out->level set), -1 when not (no solution, several, or not within
 * max_level: see out->solutions), -2 when out of memory. */
int rate_puzzle(const struct grid *puzzle, const struct rate_options *opt, struct rating *out);

/* "simple", "easy", ...; "none" for LEVEL_NONE. */
const char *rate_level_name(int level);
/* "naked single", ..., "guess". */
const char *rate_technique_name(enum technique t);
/* The level a technique belongs to. */
int rate_technique_level(enum technique t);

#endif

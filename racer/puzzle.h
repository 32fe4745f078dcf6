/* A puzzle between the input and the output, and its life: a state
 * machine whose every change goes through puzzle_enter.
 *
 *   FREE --read--> LOOKUP --a miss--> WAITING --to its presolver--> FIRST
 *     |               |                  |                            |
 *     | invalid       | a hit            | no presolver for it        | over its budget, it gave up,
 *     v               v                  v                            v its claim needs a second program
 *    DONE <--------- DONE              ALL <---------------------------+
 *     ^                                  |
 *     +--- won, proved, timeout, unsolved (from FIRST or ALL)
 *   FIRST --taken back from a held process (its cancel acknowledged)--> WAITING
 *   DONE --its answer written, in input order--> FREE */
#ifndef RACER_PUZZLE_H
#define RACER_PUZZLE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "protocol/message.h"
#include "lib/puzzle_stream.h"
#include "racer/outcome.h"
#include "racer/workers.h"

#define MAX_CLAIMS 4
/* Grids of up to this many cells (16x16) are kept in the puzzle's slot, a
 * larger one apart: a slot is 1.5 kB, not the 5.6 a 64x64 grid's room
 * made it. A ring slot's memory is zeroed as it is first touched, and a
 * warm run has some 2,600 in use; a fresh huge page there sometimes cost
 * this virtual machine 15 ms. */
#define PUZZLE_SMALL_CELLS 256

enum pz_state { PZ_FREE, PZ_LOOKUP, PZ_WAITING, PZ_FIRST, PZ_ALL, PZ_DONE };

/* The furthest a race went, for --json and --progress. */
enum stage { STAGE_NONE, STAGE_FIRST, STAGE_ALL };

/* Verdicts that need proof (unsat, a count): the claims so far, from
 * entries of different programs, and who proved the final one. */
struct claims {
	int8_t spec[MAX_CLAIMS];
	uint8_t verdict[MAX_CLAIMS];
	long count[MAX_CLAIMS];      /* --count=K: solutions found, K at most */
	uint8_t n;
	bool confirmed;              /* two programs agreed (or the givens clash) */
	uint32_t asked;              /* entries asked to confirm (bits) */
	int8_t awaiting;             /* the confirmer in whose queue it waits for room, or -1 */
	char provers[40];            /* "cp+sat" */
};

struct attempt;

struct puzzle {
	uint64_t seq;
	enum pz_state state;
	enum stage stage;
	bool escalated;            /* ALL after the presolver's budget or failure */
	bool requeue;              /* FIRST: taken back; its cancel is on its way */
	bool overdue;              /* FIRST: over its budget, waiting for a place */
	bool cache_hit;
	bool timeout_reason;       /* a worker gave up with "timeout" */
	bool marked;               /* in the race's list of puzzles to look at */
	uint8_t lost;              /* times a process ended under it */
	enum verdict verdict;
	enum uniqueness uniq;      /* V_SOLVED: what --count found (or the cache knew) */
	const char *input_name;    /* NULL: standard input */
	int first_spec;            /* FIRST: the entry that has it alone */
	int winner;                /* entry index, -1: none */
	char winner_name[17];      /* cache hits: the worker that found it then */
	double winner_ms;          /* the winner's own ms= (cache: as stored) */
	double race_ms;            /* the racer's clock, from the race's start */
	long count;                /* --count: solutions found, up to K (0: not counted) */
	uint64_t dispatch_ns;      /* first sent to a worker */
	uint64_t start_ns;         /* the race's clock: a worker began it (0: not yet) */
	struct event *timeout_ev;  /* --timeout of a puzzle in ALL */
	struct puzzle *prev, *next; /* the race's list of those in ALL */
	struct puzzle *next_marked; /* the race's puzzles to look at again */
	struct puzzle *next_again;  /* the queue's puzzles taken back */
	struct claims claims;
	struct msg_solve_record solve; /* its solve message while racing */
	char text[GRID_ERR_MAX + 64]; /* V_CLASH, V_UNSUPPORTED: "line N: why" */
	uint8_t *solution;         /* cells of the solution (V_SOLVED, V_MULTIPLE) */
	uint8_t solution_small[PUZZLE_SMALL_CELLS]; /* where they are kept up to 16x16 */
	struct attempt *att[MAX_SPECS]; /* per entry: its attempt, NULL: none */
	/* the puzzle as read: the line it began on, its notation, its grid
	 * (V_INVALID: none; text says why) */
	long line;
	struct notation notation;
	struct grid *grid;         /* grid_room, or allocated past PUZZLE_SMALL_CELLS */
	/* last: a 9x9 puzzle's cells end the bytes it uses */
	union {
		struct grid grid;
		uint8_t bytes[sizeof(struct grid) + PUZZLE_SMALL_CELLS];
	} grid_room;
};

/* A fresh puzzle in a slot, as number seq (puzzle_take_item gives it what
 * the input read). */
void puzzle_init(struct puzzle *pz, uint64_t seq, const char *input_name, int nspecs);
/* The puzzle as the input's reader left it in item (its line, notation,
 * grid; or, invalid, its error), copied into pz. */
void puzzle_take_item(struct puzzle *pz, const struct stream_item *item, bool invalid);
/* The one way a state changes; a change the diagram lacks is a bug. */
void puzzle_enter(struct puzzle *pz, enum pz_state to);
/* Its verdict: DONE (counted). */
void puzzle_decide(struct puzzle *pz, enum verdict v);
/* True when its givens clash (text says where: the answer the workers'
 * filter mode gives). Asked only of a puzzle said to have no solution:
 * the workers see a clash as unsat at once (PROTOCOL.md 9). */
bool puzzle_givens_clash(struct puzzle *pz);
/* Keeps a copy of the solution's cells (in the slot up to 16x16). */
void puzzle_keep_solution(struct puzzle *pz, const uint8_t *cells);
/* The memory it holds beyond its slot; the slot is FREE again. */
void puzzle_release(struct puzzle *pz);
/* "FILE: " for a puzzle of a named file (as the workers' filter mode
 * writes it), or "", into a buffer of PUZZLE_WHERE_MAX bytes. */
#define PUZZLE_WHERE_MAX (PATH_MAX + 8)
const char *puzzle_where(const struct puzzle *pz, char *buf, size_t size);
/* What entry spec did in its race (OUT_NONE: nothing yet). */
enum outcome puzzle_outcome(const struct puzzle *pz, int spec);
/* Sets it, making the entry's attempt if it has none (an entry skipped
 * or out has one too, with no process). */
struct attempt *puzzle_set_outcome(struct puzzle *pz, int spec, enum outcome o);
/* Does the puzzle's race still go on (FIRST or ALL)? */
static inline bool puzzle_racing(const struct puzzle *pz)
{
	return pz->state == PZ_FIRST || pz->state == PZ_ALL;
}

#endif

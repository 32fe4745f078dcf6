/* What a race can end in (a puzzle's verdict), what one entry did in it
 * (its attempt's outcome), and what is known of a solution's uniqueness:
 * the words every part of the racer shares. */
#ifndef RACER_OUTCOME_H
#define RACER_OUTCOME_H

enum verdict {
	V_PENDING,
	V_SOLVED,      /* solution set */
	V_UNSAT,       /* a complete worker proved it (or the cache said so) */
	V_MULTIPLE,    /* --count: at least two solutions (solution set: one of them) */
	V_UNSOLVED,    /* every worker gave up or failed */
	V_TIMEOUT,     /* --timeout */
	V_INVALID,     /* the input was not a puzzle: text says why */
	V_CLASH,       /* givens clash: text */
	V_UNSUPPORTED, /* no worker takes its size */
};

enum uniqueness { UNIQ_UNKNOWN = 0, UNIQ_UNIQUE = 1, UNIQ_MULTIPLE = 2 };

/* What one entry of the portfolio did in one race. */
enum outcome {
	OUT_NONE,      /* not sent (yet) */
	OUT_SENT,      /* in flight */
	OUT_WON,
	OUT_LATE,      /* a correct answer after the race was decided */
	OUT_CANCELLED,
	OUT_WRONG,     /* a solution that does not verify */
	OUT_UNSAT,
	OUT_COUNTED,   /* --count: gave the deciding count */
	OUT_GAVEUP,
	OUT_ERROR,     /* error ID ..., or a message that does not answer the request */
	OUT_MALFORMED, /* a malformed or over-long line */
	OUT_DIED,
	OUT_KILLED,    /* no acknowledgement within the grace, or shut down */
	OUT_SKIPPED,   /* does not take the puzzle (size, kind, --count) */
	OUT_OUT,       /* the entry is out of the portfolio (disabled, unavailable) */
};

/* "won", "gave up", ...: as --json and --progress write it. */
const char *outcome_name(enum outcome o);

#endif

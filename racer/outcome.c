/* The outcomes' names (outcome.h). */
#include "config.h"

#include "racer/outcome.h"

const char *outcome_name(enum outcome o)
{
	static const char *const names[] = {
		[OUT_NONE] = "not started", [OUT_SENT] = "racing",  [OUT_WON] = "won",
		[OUT_LATE] = "solved late",  [OUT_CANCELLED] = "cancelled", [OUT_WRONG] = "wrong answer",
		[OUT_UNSAT] = "unsat",       [OUT_COUNTED] = "counted", [OUT_GAVEUP] = "gave up",
		[OUT_ERROR] = "error",       [OUT_MALFORMED] = "malformed output", [OUT_DIED] = "died",
		[OUT_KILLED] = "killed",     [OUT_SKIPPED] = "skipped", [OUT_OUT] = "out",
	};
	return (unsigned)o < sizeof names / sizeof names[0] && names[o] ? names[o] : "?";
}

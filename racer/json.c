/* --json: one object per puzzle, on one line:
 *   {"line":1,"file":"x.txt","puzzle":"...","status":"solved","solution":"...",
 *    "reason":null,"unique":null,"winner":"cp","worker_ms":0.05,"ms":0.3,
 *    "cache":false,"stage":"presolver",
 *    "workers":[{"worker":"cp","outcome":"won","ms":0.05},...]}
 * Grids are in the puzzle's own notation. README ("--json") documents every
 * key and status: keep it true with this file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "racer/attempt.h"
#include "racer/options.h"
#include "racer/output.h"
#include "racer/puzzle.h"
#include "racer/util.h"

static void json_string(struct evbuffer *out, const char *s)
{
	evbuffer_add(out, "\"", 1);
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		evbuffer_add(out, run, (size_t)(s - run));
		if (c == '"')
			evbuffer_add(out, "\\\"", 2);
		else if (c == '\\')
			evbuffer_add(out, "\\\\", 2);
		else
			evbuffer_add_printf(out, "\\u%04x", c);
		run = s + 1;
	}
	evbuffer_add(out, run, (size_t)(s - run));
	evbuffer_add(out, "\"", 1);
}

static const char *status_word(enum verdict v)
{
	switch (v) {
	case V_SOLVED:
		return "solved";
	case V_UNSAT:
	case V_CLASH:
		return "unsat";
	case V_MULTIPLE:
		return "multiple";
	case V_UNSOLVED:
		return "unsolved";
	case V_TIMEOUT:
		return "timeout";
	case V_INVALID:
		return "invalid";
	case V_UNSUPPORTED:
		return "unsupported";
	case V_PENDING:
		break;
	}
	return "pending";
}

void json_puzzle(struct evbuffer *out, const struct puzzle *pz, const struct grid *solution)
{
	static char *buf;
	static size_t bufsz;
	if (!buf) {
		bufsz = grid_format_max(GRID_MAX_SIDE) + 1;
		buf = xmalloc(bufsz);
	}
	evbuffer_add_printf(out, "{\"line\":%ld", pz->item.line);
	if (pz->input_name) {
		evbuffer_add(out, ",\"file\":", 8);
		json_string(out, pz->input_name);
	}
	if (pz->verdict != V_INVALID && grid_format(&pz->item.grid, &pz->item.notation, buf, bufsz) >= 0) {
		evbuffer_add(out, ",\"puzzle\":", 10);
		json_string(out, buf);
	}
	evbuffer_add_printf(out, ",\"status\":\"%s\"", status_word(pz->verdict));
	evbuffer_add(out, ",\"solution\":", 12);
	if (solution && grid_format(solution, &pz->item.notation, buf, bufsz) >= 0)
		json_string(out, buf);
	else
		evbuffer_add(out, "null", 4);
	evbuffer_add(out, ",\"reason\":", 10);
	switch (pz->verdict) {
	case V_SOLVED:
		evbuffer_add(out, "null", 4);
		break;
	case V_INVALID:
		json_string(out, pz->item.error);
		break;
	case V_CLASH:
	case V_UNSUPPORTED:
		json_string(out, pz->text);
		break;
	case V_TIMEOUT: {
		char t[64];
		snprintf(t, sizeof t, "timeout after %g s", opt.timeout_s);
		json_string(out, t);
		break;
	}
	case V_MULTIPLE: {
		char t[80];
		snprintf(t, sizeof t, "multiple solutions: %s%ld", pz->count >= opt.count ? "at least " : "",
			 pz->count);
		json_string(out, t);
		break;
	}
	default:
		json_string(out, status_word(pz->verdict));
		break;
	}
	if (pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE)
		evbuffer_add_printf(out, ",\"unique\":%s",
				    pz->uniq == UNIQ_UNIQUE ? "true" : pz->uniq == UNIQ_MULTIPLE ? "false" : "null");
	if (opt.count && (pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE || pz->verdict == V_UNSAT ||
			  pz->verdict == V_CLASH))
		evbuffer_add_printf(out, ",\"count\":%ld,\"count_limit\":%ld", pz->count, opt.count);
	/* a verdict that needs proof: whether a second program (or the
	 * racer's own check of the givens) confirmed it, and who proved it */
	if (pz->verdict == V_UNSAT || pz->verdict == V_CLASH ||
	    (opt.count && (pz->verdict == V_SOLVED || pz->verdict == V_MULTIPLE))) {
		bool confirmed = pz->claims.confirmed || pz->verdict == V_CLASH;
		evbuffer_add_printf(out, ",\"confirmed\":%s,\"provers\":", confirmed ? "true" : "false");
		if (pz->claims.provers[0])
			json_string(out, pz->claims.provers);
		else
			evbuffer_add(out, "null", 4);
	}
	evbuffer_add(out, ",\"winner\":", 10);
	if (pz->winner >= 0)
		json_string(out, specs[pz->winner].label);
	else if (pz->winner_name[0])
		json_string(out, pz->winner_name);
	else
		evbuffer_add(out, "null", 4);
	evbuffer_add_printf(out, ",\"worker_ms\":%.3f,\"ms\":%.3f,\"cache\":%s,\"stage\":\"%s\",\"workers\":[",
			    pz->winner_ms, pz->race_ms, pz->cache_hit ? "true" : "false",
			    pz->stage == STAGE_NONE ? "none"
			    : pz->stage == STAGE_FIRST ? "presolver"
			    : pz->escalated	       ? "escalated"
						       : "all");
	bool first = true;
	for (int i = 0; i < nspecs && pz->stage != STAGE_NONE; i++) {
		enum outcome o = puzzle_outcome(pz, i);
		if (o == OUT_NONE)
			continue;
		/* still in flight: it was sent a cancel when the race ended */
		if (o == OUT_SENT)
			o = OUT_CANCELLED;
		evbuffer_add(out, first ? "{\"worker\":" : ",{\"worker\":", first ? 10 : 11);
		json_string(out, specs[i].label);
		evbuffer_add(out, ",\"outcome\":", 11);
		json_string(out, outcome_name(o));
		if (pz->att[i] && pz->att[i]->ms > 0)
			evbuffer_add_printf(out, ",\"ms\":%.3f", (double)pz->att[i]->ms);
		evbuffer_add(out, "}", 1);
		first = false;
	}
	evbuffer_add(out, "]}\n", 3);
}

/* Fuzz target: the protocol codec (protocol/message.c). A line either side
 * may receive is parsed; a message that parses is written again by the
 * codec's writer for its type and must read back the same. */
#include "config.h"

#include <string.h>

#include "fuzz_common.h"

static char line[PROTO_LINE_MAX + 1], out[PROTO_LINE_MAX + 1];

/* Parses out (a line the codec wrote, n bytes with its LF) into back. */
static void reparse(int n, struct msg *back)
{
	char err[128];
	fuzz_check(n > 0 && out[n - 1] == '\n' && (size_t)n == strlen(out));
	fuzz_check(msg_parse(out, (size_t)n - 1, back, err, sizeof err) == 0);
}

static void check_rewrite(const struct msg *m)
{
	struct msg back;
	union grid_room g_room;
	struct grid *g = &g_room.grid;
	struct notation nt;
	switch (m->type) {
	case MSG_SOLVE: {
		struct msg_solve in;
		char why[128], err[GRID_ERR_MAX];
		if (msg_read_solve(m, NULL, &in, why, sizeof why) < 0)
			fuzz_check_error(why, sizeof why);
		if (grid_parse(in.grid, in.grid_len, g, &nt, err, sizeof err) < 0)
			return;
		const struct msg_solve_fields f = in.f;
		size_t before_seed;
		int n = msg_write_solve(out, sizeof out, m->id, g, &f, &before_seed);
		/* the record the racer keeps holds the same line, and the same
		 * line cut before its seed */
		static struct msg_solve_record rec;
		struct msg_span part[2];
		fuzz_check(msg_solve_record_make(&rec, m->id, g, &f) == n);
		fuzz_check(msg_solve_emit(&rec, true, part) == 1 && part[0].len == (size_t)n &&
			   memcmp(part[0].p, out, (size_t)n) == 0);
		int k = msg_solve_emit(&rec, false, part);
		fuzz_check(k >= 1 && part[0].len >= before_seed && memcmp(part[0].p, out, before_seed) == 0);
		if (k == 2)
			fuzz_check(part[0].len == before_seed && part[1].len == 1 && part[1].p[0] == '\n');
		else
			fuzz_check(part[0].len == before_seed + 1 && part[0].p[before_seed] == '\n');
		msg_solve_record_clear(&rec);
		reparse(n, &back);
		fuzz_check(back.type == MSG_SOLVE && strcmp(back.id, m->id) == 0);
		union grid_room sent_room;
		struct grid *sent = &sent_room.grid;
		fuzz_check(msg_parse_grid(back.argv[0], strlen(back.argv[0]), g->box, sent) == 0);
		fuzz_check(memcmp(sent->cell, g->cell, (size_t)g->cells) == 0);
		struct msg_solve again;
		fuzz_check(msg_read_solve(&back, NULL, &again, why, sizeof why) == 0);
		fuzz_check(again.f.has_seed == f.has_seed && (!f.has_seed || again.f.seed == f.seed));
		fuzz_check(again.f.limit_ms == f.limit_ms && again.f.progress_ms == f.progress_ms);
		fuzz_check(again.f.count == (f.count >= 2 ? f.count : 0));
		break;
	}
	case MSG_CANCEL:
		reparse(msg_write_cancel(out, sizeof out, m->id), &back);
		fuzz_check(back.type == MSG_CANCEL && strcmp(back.id, m->id) == 0);
		break;
	case MSG_CANCELLED:
		reparse(msg_write_cancelled(out, sizeof out, m->id), &back);
		fuzz_check(back.type == MSG_CANCELLED && strcmp(back.id, m->id) == 0);
		break;
	case MSG_PING:
		reparse(msg_write_ping(out, sizeof out, m->argv[0]), &back);
		fuzz_check(back.type == MSG_PING && strcmp(back.argv[0], m->argv[0]) == 0);
		break;
	case MSG_PONG:
		reparse(msg_write_pong(out, sizeof out, m->argv[0]), &back);
		fuzz_check(back.type == MSG_PONG && strcmp(back.argv[0], m->argv[0]) == 0);
		break;
	case MSG_ERROR:
		if (m->argc > 0) {
			reparse(msg_write_error(out, sizeof out, strcmp(m->id, "-") ? m->id : NULL, m->argv[0]),
				&back);
			fuzz_check(back.type == MSG_ERROR && strcmp(back.id, m->id) == 0);
		}
		break;
	case MSG_GAVEUP:
		if (m->argc > 0) {
			reparse(msg_write_gaveup(out, sizeof out, m->id, m->argv[0], 1.5), &back);
			fuzz_check(back.type == MSG_GAVEUP && back.argc == 1);
		}
		break;
	case MSG_HELLO: {
		struct msg_hello in;
		char why[128];
		if (msg_read_hello(m, &in, why, sizeof why) < 0) {
			fuzz_check_error(why, sizeof why);
		} else {
			/* what reads is written again and reads back the same */
			fuzz_check(in.min_box >= GRID_MIN_BOX && in.min_box <= in.max_box &&
				   in.max_box <= GRID_MAX_BOX && in.batch >= 1 && in.proto >= 1);
			reparse(msg_write_hello(out, sizeof out, &in), &back);
			struct msg_hello again;
			fuzz_check(msg_read_hello(&back, &again, why, sizeof why) == 0);
			fuzz_check(again.proto == in.proto && again.complete == in.complete &&
				   again.min_box == in.min_box && again.max_box == in.max_box &&
				   again.batch == (in.batch > 1 ? in.batch : 1));
		}
		char detail[64];
		msg_hello_detail(in.detail, detail, sizeof detail);
		fuzz_check(strlen(detail) < sizeof detail);
		const struct msg_hello h = {m->argv[0], m->argv[1], true, 2, 8, "cpu", msg_field(m, "detail"), 4, 0, false};
		reparse(msg_write_hello(out, sizeof out, &h), &back);
		fuzz_check(back.type == MSG_HELLO && back.argc == 2);
		break;
	}
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size >= PROTO_LINE_MAX)
		return 0;
	/* the first byte is the box size a solution word is read for */
	int box = GRID_MIN_BOX + data[0] % (GRID_MAX_BOX - GRID_MIN_BOX + 1);
	memcpy(line, data + 1, size - 1);
	struct msg m;
	char err[128];
	if (msg_parse(line, size - 1, &m, err, sizeof err) < 0) {
		fuzz_check_error(err, sizeof err);
		return 0;
	}
	fuzz_check(m.argc <= PROTO_MAX_ARGS && m.nfields <= PROTO_MAX_FIELDS && m.word);
	if (m.id && strcmp(m.id, "-") != 0)
		fuzz_check(msg_valid_id(m.id));
	for (int i = 0; i < m.argc; i++) {
		union grid_room g_room;
		struct grid *g = &g_room.grid;
		if (msg_parse_grid(m.argv[i], strlen(m.argv[i]), box, g) == 0)
			fuzz_check_grid(g);
	}
	struct msg_reply r;
	char why[128];
	enum msg_read_status rs = msg_read_reply(&m, &r, why, sizeof why);
	if (rs == MSG_READ_BAD_ID || rs == MSG_READ_BAD_FIELD)
		fuzz_check_error(why, sizeof why);
	if (rs == MSG_READ_OK) {
		fuzz_check(r.type == m.type && r.ms >= 0 && r.count >= 0 && r.count <= PROTO_COUNT_MAX);
		fuzz_check(!r.grid || strlen(r.grid) == r.grid_len);
		/* an error's words are the message's own, for the racer to name */
		fuzz_check(r.type == MSG_ERROR ? r.words == m.argv && r.nwords == m.argc : !r.words && !r.nwords);
	}
	check_rewrite(&m);
	return 0;
}

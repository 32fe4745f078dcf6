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
	static struct grid g;
	struct notation nt;
	char err[GRID_ERR_MAX];
	bool bad = false;
	switch (m->type) {
	case MSG_SOLVE: {
		if (grid_parse(m->argv[0], strlen(m->argv[0]), &g, &nt, err, sizeof err) < 0)
			return;
		const struct msg_solve_fields f = {
			.count = msg_field_long(m, "count", 1, 1, 1L << 50, &bad),
			.limit_ms = msg_field_long(m, "limit_ms", 0, 0, 1L << 40, &bad),
			.progress_ms = msg_field_long(m, "progress_ms", 0, 0, 1L << 40, &bad),
			.has_seed = msg_field(m, "seed") != NULL,
			.seed = msg_field_u64(m, "seed", 0, &bad),
		};
		size_t before_seed;
		reparse(msg_write_solve(out, sizeof out, m->id, &g, &f, &before_seed), &back);
		fuzz_check(back.type == MSG_SOLVE && strcmp(back.id, m->id) == 0);
		static struct grid sent;
		fuzz_check(msg_parse_grid(back.argv[0], strlen(back.argv[0]), g.box, &sent) == 0);
		fuzz_check(memcmp(sent.cell, g.cell, (size_t)g.cells) == 0);
		if (!bad && f.has_seed)
			fuzz_check(msg_field_u64(&back, "seed", 0, &bad) == f.seed);
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
		const struct msg_hello h = {m->argv[0], m->argv[1], true, 2, 8, "cpu", msg_field(m, "detail"), 4};
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
		static struct grid g;
		if (msg_parse_grid(m.argv[i], strlen(m.argv[i]), box, &g) == 0)
			fuzz_check_grid(&g);
	}
	check_rewrite(&m);
	return 0;
}

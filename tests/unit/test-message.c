/* Unit tests: the protocol codec. */
#include "config.h"

#include "protocol/message.h"
#include "tap.h"

static int parse(const char *text, struct msg *m, char *line, char *err)
{
	strcpy(line, text);
	return msg_parse(line, strlen(line), m, err, 128);
}

int main(void)
{
	struct msg m;
	static char line[PROTO_LINE_MAX];
	char err[128];

	ok(parse("solve p1 1.3..4.2.1..3..1 seed=7 limit_ms=100", &m, line, err) == 0, "a solve parses");
	ok(m.type == MSG_SOLVE, "its type");
	is_str(m.id, "p1", "its id");
	ok(m.argc == 1, "one positional word");
	is_str(m.argv[0], "1.3..4.2.1..3..1", "the grid");
	is_str(msg_field(&m, "seed"), "7", "the seed field");
	is_str(msg_field(&m, "limit_ms"), "100", "the limit field");
	ok(msg_field(&m, "count") == NULL, "an absent field is NULL");

	ok(parse("solution x:1 1234\r", &m, line, err) == 0 && m.type == MSG_SOLUTION, "CR before LF is dropped");
	is_str(m.argv[0], "1234", "and the grid has no CR");

	ok(parse("hello cp 0.1.0 proto=1 kind=complete sizes=2-8 device=cpu", &m, line, err) == 0,
	   "hello parses");
	ok(m.type == MSG_HELLO && m.argc == 2, "name and version are positional");
	is_str(msg_field(&m, "kind"), "complete", "kind field");

	ok(parse("frobnicate 1 2 3", &m, line, err) == 0 && m.type == MSG_UNKNOWN, "an unknown type is not an error");
	ok(parse("solve", &m, line, err) < 0, "solve without an id is malformed");
	ok(parse("solve p1", &m, line, err) < 0, "solve without a grid is malformed");
	ok(parse("solve p/1 1234", &m, line, err) < 0, "a bad id is malformed");
	ok(parse("   ", &m, line, err) < 0, "an empty line is malformed");
	ok(parse("ping\x01", &m, line, err) < 0, "a control character is malformed");
	/* words are cut 16 bytes a step: a stop in each half of a step, and past one */
	ok(parse("solve p 1234567890123456789\x7f" "1", &m, line, err) < 0 && strstr(err, "0x7f at byte 28"),
	   "DEL deep in a long word is found, at its byte");
	ok(parse("solve p 1234\t67890123456789", &m, line, err) < 0 && strstr(err, "0x09 at byte 13"),
	   "a tab in a word's first 8 bytes is found");
	ok(parse("solve p 12345678901\x1f", &m, line, err) < 0 && strstr(err, "0x1f at byte 20"),
	   "a control character in a step's second half is found");
	ok(parse("solve p 12345678901234567890123456789012 x=1", &m, line, err) == 0 &&
		   strlen(m.argv[0]) == 32 && m.nfields == 1,
	   "a word of two whole steps ends at its space");
	/* then 8 a step, then the line's last 8 bytes: every byte in every
	 * place of a word that ends the line, at every length */
	bool all_cut = true;
	for (int n = 1; n <= 40; n++) {
		for (int at = 0; at < n; at++) {
			for (int c = 1; c < 256; c++) {
				char text[64] = "ping ";
				memset(text + 5, '!', (size_t)n); /* '!' is 0x21, the first byte of a word */
				text[5 + at] = (char)c;
				bool cut = parse(text, &m, line, err) == 0;
				if ((c == '=' && at > 0) || (c == '\r' && at == n - 1) || (c == ' ' && n == 1))
					continue; /* a field; a CR dropped; no token */
				if (c < ' ' || c == 0x7f) {
					char want[32];
					snprintf(want, sizeof want, "0x%02x at byte %d", c, 6 + at);
					all_cut &= !cut && strstr(err, want) != NULL;
				} else if (c == ' ') {
					all_cut &= cut && m.argc == (at == 0 || at == n - 1 ? 1 : 2) &&
						   strlen(m.argv[0]) == (size_t)(at ? at : n - 1);
				} else {
					all_cut &= cut && m.argc == 1 && strlen(m.argv[0]) == (size_t)n;
				}
			}
		}
	}
	ok(all_cut, "words of 1 to 40 bytes ending the line: each byte in each place cuts or is refused as before");
	ok(parse("cancel 1234", &m, line, err) == 0 && m.type == MSG_CANCEL && strcmp(m.id, "1234") == 0,
	   "a cancel shorter than 16 bytes");
	ok(parse("cancelled 7", &m, line, err) == 0 && m.type == MSG_CANCELLED, "cancelled is not cancel");
	ok(parse("solver 7 1234", &m, line, err) == 0 && m.type == MSG_UNKNOWN, "solver is not solve");
	ok(parse("ping", &m, line, err) < 0, "ping without a token is malformed");
	ok(parse("quit", &m, line, err) == 0 && m.type == MSG_QUIT && !m.id, "quit has no id");
	ok(parse("error - line 3 is too long", &m, line, err) == 0 && m.type == MSG_ERROR, "error - parses");
	is_str(m.id, "-", "with the id -");
	ok(parse("error p2 invalid puzzle: a=b", &m, line, err) == 0 && m.nfields == 0,
	   "an error's words are text, not fields");
	ok(parse("count p3 2 1234 nodes=5", &m, line, err) == 0 && m.argc == 2, "count carries K and a grid");
	{
		struct msg_reply r;
		ok(parse("error 12 cannot open  /dev/fpga0 ms=3", &m, line, err) == 0 &&
			   msg_read_reply(&m, &r, err, 128) == MSG_READ_OK && r.has_id && r.id == 12,
		   "an error reply about request 12");
		ok(r.nwords == 4 && strcmp(r.words[0], "cannot") == 0 && strcmp(r.words[3], "ms=3") == 0,
		   "its text's words, a key=value one among them, for the racer to name");
		ok(parse("unsat 12 nodes=1", &m, line, err) == 0 && msg_read_reply(&m, &r, err, 128) == MSG_READ_OK &&
			   r.nwords == 0 && !r.words,
		   "another reply has no words");
	}

	ok(msg_valid_id("abc-1.2:3_4"), "ids take letters, digits and _.:-");
	ok(!msg_valid_id(""), "an empty id is not valid");
	char longid[80];
	memset(longid, 'a', 70);
	longid[70] = 0;
	ok(!msg_valid_id(longid), "a 70-byte id is too long");
	longid[63] = 0;
	ok(msg_valid_id(longid), "a 63-byte id is not");
	longid[63] = 'a';
	longid[64] = 0;
	ok(!msg_valid_id(longid), "a 64-byte id is");
	/* the table of id bytes against the ranges it replaced */
	bool bytes_agree = true;
	for (int c = 1; c < 256; c++) {
		char id[3] = {'x', (char)c, 0};
		bool want = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    c == '_' || c == '.' || c == ':' || c == '-';
		bytes_agree &= msg_valid_id(id) == want && msg_valid_id(id + 1) == want;
	}
	ok(bytes_agree, "each of the 255 bytes is an id byte exactly when it is [A-Za-z0-9_.:-]");

	union grid_room g_room;
	struct grid *g = &g_room.grid;
	grid_init(g, 6);
	g->cell[0] = 36;
	static char buf[GRID_MAX_CELLS * 4];
	ok(msg_format_grid(g, buf, sizeof buf) > 0 && strncmp(buf, "36,0,0", 6) == 0,
	   "36x36 grids travel as comma-separated numbers");
	union grid_room h_room;
	struct grid *h = &h_room.grid;
	struct notation nt;
	ok(grid_parse(buf, strlen(buf), h, &nt, err, sizeof err) == 0 && h->box == 6 && h->cell[0] == 36,
	   "and parse back");
	/* msg_parse_grid: the protocol's two forms for a known size */
	union grid_room p_room;
	struct grid *p = &p_room.grid;
	ok(msg_parse_grid(buf, strlen(buf), 6, p) == 0 && p->cell[0] == 36 && p->cells == 1296 &&
	       memcmp(p->cell, h->cell, 1296) == 0,
	   "msg_parse_grid reads a 36x36 word");
	ok(msg_parse_grid("1.3..4.2.1..3..1", 16, 2, p) == 0 && p->cell[0] == 1 && p->cell[1] == 0 &&
	       p->cell[15] == 1,
	   "msg_parse_grid reads characters");
	ok(msg_parse_grid("1,0,3,0,0,4,0,2,0,1,0,0,3,0,0,1", 31, 2, p) == 0 && p->cell[2] == 3,
	   "and numbers, for any size");
	ok(msg_parse_grid("1.3..4.2.1..3..5", 16, 2, p) < 0, "a value out of range is refused");
	ok(msg_parse_grid("1.3..4.2.1..3..", 15, 2, p) < 0, "a short word is refused");
	ok(msg_parse_grid("1.3..4.2.1..3..1", 16, 3, p) < 0, "a word of another size is refused");
	ok(msg_parse_grid("1,0,3,0,0,4,0,2,0,1,0,0,3,0,0,1,", 32, 2, p) < 0, "a trailing comma is refused");
	ok(msg_parse_grid("1.3..4.2.1..3.x1", 16, 2, p) < 0, "a stray character is refused");

	/* the writers: each line as PROTOCOL.md spells it, and msg_parse reads it back */
	static char out[PROTO_LINE_MAX];
	union grid_room g4_room;
	struct grid *g4 = &g4_room.grid;
	grid_init(g4, 2);
	ok(msg_parse_grid("1234341221434321", 16, 2, g4) == 0, "a 4x4 grid to write");
	const struct msg_effort eff = {15, 0.0344};
	static char copy[PROTO_LINE_MAX];
#define WRITES(call, want)                                                                  \
	do {                                                                                \
		int n_ = (call);                                                            \
		is_str(out, want, "writes %s", #call);                                      \
		ok(n_ == (int)strlen(want), "and returns its length");                      \
		strcpy(copy, out);                                                          \
		ok(msg_parse(copy, strlen(copy) - 1, &m, err, sizeof err) == 0, "which parses: %s", err); \
	} while (0)
	WRITES(msg_write_solve(out, sizeof out, "p1", g4, NULL, NULL), "solve p1 1234341221434321\n");
	ok(m.type == MSG_SOLVE && strcmp(m.id, "p1") == 0 && strcmp(m.argv[0], "1234341221434321") == 0,
	   "solve reads back");
	const struct msg_solve_fields f = {.count = 2, .limit_ms = 100, .progress_ms = 50, .has_seed = true, .seed = 18446744073709551615u};
	size_t before_seed = 0;
	WRITES(msg_write_solve(out, sizeof out, "7", g4, &f, &before_seed),
	       "solve 7 1234341221434321 count=2 limit_ms=100 progress_ms=50 seed=18446744073709551615\n");
	ok(before_seed == strlen("solve 7 1234341221434321 count=2 limit_ms=100 progress_ms=50"),
	   "before_seed is where the seed field starts");
	bool bad = false;
	ok(msg_field_u64(&m, "seed", 0, &bad) == 18446744073709551615u && !bad, "the seed reads back");
	ok(msg_field_long(&m, "limit_ms", 0, 0, 1000, &bad) == 100 && !bad, "limit_ms reads back");
	ok(msg_field_long(&m, "count", 1, 1, 1, &bad) == 1 && bad, "a value out of range is bad");
	WRITES(msg_write_cancel(out, sizeof out, "p1"), "cancel p1\n");
	ok(m.type == MSG_CANCEL, "cancel reads back");
	WRITES(msg_write_ping(out, sizeof out, "t9"), "ping t9\n");
	WRITES(msg_write_pong(out, sizeof out, "t9"), "pong t9\n");
	ok(m.type == MSG_PONG && strcmp(m.argv[0], "t9") == 0, "pong reads back");
	WRITES(msg_write_quit(out, sizeof out), "quit\n");
	WRITES(msg_write_progress(out, sizeof out, "p1", "depth=3 nodes=7"), "progress p1 depth=3 nodes=7\n");
	is_str(msg_field(&m, "nodes"), "7", "progress fields read back");
	WRITES(msg_write_solution(out, sizeof out, "p1", g4, &eff), "solution p1 1234341221434321 nodes=15 ms=0.034\n");
	WRITES(msg_write_unsat(out, sizeof out, "p2", &eff, NULL), "unsat p2 nodes=15 ms=0.034\n");
	WRITES(msg_write_unsat(out, sizeof out, "p2", NULL, "clash"), "unsat p2 reason=clash\n");
	WRITES(msg_write_count(out, sizeof out, "p3", 2, g4, &eff, NULL),
	       "count p3 2 1234341221434321 nodes=15 ms=0.034\n");
	WRITES(msg_write_count(out, sizeof out, "p3", 0, NULL, NULL, "clash"), "count p3 0 reason=clash\n");
	WRITES(msg_write_gaveup(out, sizeof out, "p4", "timeout", 12.5), "gaveup p4 timeout ms=12.500\n");
	WRITES(msg_write_gaveup(out, sizeof out, "p4", "out of memory", -1), "gaveup p4 out_of_memory\n");
	ok(m.argc == 1, "a reason stays one word");
	WRITES(msg_write_gaveup(out, sizeof out, "p4", "", -1), "gaveup p4 unknown\n");
	WRITES(msg_write_cancelled(out, sizeof out, "p5"), "cancelled p5\n");
	WRITES(msg_write_error(out, sizeof out, "p6", "invalid puzzle: 17 cells"), "error p6 invalid puzzle: 17 cells\n");
	WRITES(msg_write_error(out, sizeof out, NULL, "line 3: bad\ttab"), "error - line 3: bad?tab\n");
	const struct msg_hello hello = {"cp", "0.1.0", true, 2, 8, "gpu", "NVIDIA H100 80GB", 512, 0, false};
	WRITES(msg_write_hello(out, sizeof out, &hello),
	       "hello cp 0.1.0 proto=1 kind=complete sizes=2-8 device=gpu detail=NVIDIA_H100_80GB batch=512\n");
	ok(m.type == MSG_HELLO && strcmp(msg_field(&m, "detail"), "NVIDIA_H100_80GB") == 0, "hello reads back");
	const struct msg_hello plain = {"acs", "1", false, 2, 5, "cpu", NULL, 0, 0, false};
	WRITES(msg_write_hello(out, sizeof out, &plain), "hello acs 1 proto=1 kind=stochastic sizes=2-5 device=cpu\n");
	/* too small a buffer: -1, never a cut line */
	char small[12];
	ok(msg_write_solution(small, sizeof small, "p1", g4, &eff) == -1, "a line that does not fit is -1");
	ok(msg_write_quit(small, 5) == -1, "quit needs room for its NUL too");
	ok(msg_write_quit(small, 6) == 5, "and fits in 6 bytes");
	return tap_done();
}

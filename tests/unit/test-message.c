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
	ok(parse("error - line 3 is too long", &m, line, err) == 0 && m.type == MSG_ERROR, "error - parses");
	is_str(m.id, "-", "with the id -");
	ok(parse("error p2 invalid puzzle: a=b", &m, line, err) == 0 && m.nfields == 0,
	   "an error's words are text, not fields");
	ok(parse("count p3 2 1234 nodes=5", &m, line, err) == 0 && m.argc == 2, "count carries K and a grid");

	ok(msg_valid_id("abc-1.2:3_4"), "ids take letters, digits and _.:-");
	ok(!msg_valid_id(""), "an empty id is not valid");
	char longid[80];
	memset(longid, 'a', 70);
	longid[70] = 0;
	ok(!msg_valid_id(longid), "a 70-byte id is too long");

	struct grid g;
	grid_init(&g, 6);
	g.cell[0] = 36;
	static char buf[GRID_MAX_CELLS * 4];
	ok(msg_format_grid(&g, buf, sizeof buf) > 0 && strncmp(buf, "36,0,0", 6) == 0,
	   "36x36 grids travel as comma-separated numbers");
	struct grid h;
	struct notation nt;
	ok(grid_parse(buf, strlen(buf), &h, &nt, err, sizeof err) == 0 && h.box == 6 && h.cell[0] == 36,
	   "and parse back");
	/* msg_parse_grid: the protocol's two forms for a known size */
	struct grid p;
	ok(msg_parse_grid(buf, strlen(buf), 6, &p) == 0 && p.cell[0] == 36 && p.cells == 1296 &&
	       memcmp(p.cell, h.cell, 1296) == 0,
	   "msg_parse_grid reads a 36x36 word");
	ok(msg_parse_grid("1.3..4.2.1..3..1", 16, 2, &p) == 0 && p.cell[0] == 1 && p.cell[1] == 0 &&
	       p.cell[15] == 1,
	   "msg_parse_grid reads characters");
	ok(msg_parse_grid("1,0,3,0,0,4,0,2,0,1,0,0,3,0,0,1", 31, 2, &p) == 0 && p.cell[2] == 3,
	   "and numbers, for any size");
	ok(msg_parse_grid("1.3..4.2.1..3..5", 16, 2, &p) < 0, "a value out of range is refused");
	ok(msg_parse_grid("1.3..4.2.1..3..", 15, 2, &p) < 0, "a short word is refused");
	ok(msg_parse_grid("1.3..4.2.1..3..1", 16, 3, &p) < 0, "a word of another size is refused");
	ok(msg_parse_grid("1,0,3,0,0,4,0,2,0,1,0,0,3,0,0,1,", 32, 2, &p) < 0, "a trailing comma is refused");
	ok(msg_parse_grid("1.3..4.2.1..3.x1", 16, 2, &p) < 0, "a stray character is refused");
	return tap_done();
}

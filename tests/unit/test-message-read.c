/* Unit tests: the protocol codec's typed reads (msg_read_*) and the solve
 * record the racer keeps (msg_solve_record_*). */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "protocol/message.h"
#include "tap.h"

static char line[PROTO_LINE_MAX];
static struct msg m;

/* msg_parse of a copy of text into m. */
static int parse(const char *text)
{
	char err[128];
	strcpy(line, text);
	return msg_parse(line, strlen(line), &m, err, sizeof err);
}

static int hello(const char *text, struct msg_hello *h, char *err)
{
	if (parse(text) < 0)
		return -2;
	return msg_read_hello(&m, h, err, 128);
}

static enum msg_read_status reply(const char *text, struct msg_reply *r, char *err)
{
	if (parse(text) < 0)
		return (enum msg_read_status)-1;
	return msg_read_reply(&m, r, err, 128);
}

static int solve(const char *text, const struct msg_solve_fields *dflt, struct msg_solve *s, char *err)
{
	if (parse(text) < 0)
		return -2;
	return msg_read_solve(&m, dflt, s, err, 128);
}

/* The bytes msg_solve_emit gives, joined. */
static const char *emitted(const struct msg_solve_record *r, bool with_seed, int *nparts)
{
	static char joined[PROTO_LINE_MAX];
	struct msg_span part[2];
	int n = msg_solve_emit(r, with_seed, part);
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		memcpy(joined + len, part[i].p, part[i].len);
		len += part[i].len;
	}
	joined[len] = '\0';
	*nparts = n;
	return joined;
}

static void test_hello(void)
{
	struct msg_hello h;
	char err[128] = "";
	ok(hello("hello cp 0.1.0 proto=1 kind=complete sizes=2-8 device=cpu", &h, err) == 0, "a hello reads");
	is_str(h.name, "cp", "its name");
	is_str(h.version, "0.1.0", "its version");
	ok(h.proto == 1 && h.complete && h.min_box == 2 && h.max_box == 8, "proto, kind, sizes");
	is_str(h.device, "cpu", "device");
	ok(h.detail == NULL && h.batch == 1, "no detail; batch 1 when absent");

	ok(hello("hello gpu 2 kind=stochastic device=gpu sizes=3-3 proto=1 detail=NVIDIA_H100_80GB batch=512 "
		 "future=x",
		 &h, err) == 0,
	   "fields in any order, an unknown one ignored");
	ok(!h.complete && h.min_box == 3 && h.max_box == 3 && h.batch == 512, "kind, sizes, batch");
	is_str(h.device, "gpu", "device gpu");
	is_str(h.detail, "NVIDIA_H100_80GB", "the detail as sent");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8", &h, err) == 0, "device absent");
	is_str(h.device, "cpu", "reads as cpu");
	ok(hello("hello x 1 proto=2 kind=complete sizes=2-8 device=cpu", &h, err) == 0 && h.proto == 2,
	   "a later proto is read: whether it is spoken is the caller's check");

	ok(hello("hello x 1 proto=1abc kind=complete sizes=2-8 device=cpu", &h, err) < 0 && h.proto == 0,
	   "proto=1abc is refused, and proto reads 0");
	ok(strstr(err, "proto=1abc") != NULL, "err names it: %s", err);
	ok(hello("hello x 1 kind=complete sizes=2-8 device=cpu", &h, err) < 0 && h.proto == 0, "no proto: refused");
	ok(hello("hello x 1 proto= kind=complete sizes=2-8", &h, err) < 0, "an empty proto is refused");
	ok(hello("hello x 1 proto=+1 kind=complete sizes=2-8", &h, err) < 0, "a signed proto is refused");
	ok(hello("hello x 1 proto=0 kind=complete sizes=2-8", &h, err) < 0 && h.proto == 0, "proto=0 is refused");
	ok(hello("hello x 1 proto=99999999999999999999 kind=complete sizes=2-8", &h, err) < 0 && h.proto == 0,
	   "a proto past 64 bits is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8 batch=x kind=bogus", &h, err) < 0 && h.proto == 1,
	   "proto is set when a later field is bad");

	ok(hello("hello x 1 proto=1 kind=smart sizes=2-8", &h, err) < 0 && strstr(err, "kind=smart"),
	   "a kind of neither kind is refused: %s", err);
	ok(hello("hello x 1 proto=1 sizes=2-8", &h, err) < 0 && strstr(err, "kind"), "no kind: refused");
	ok(hello("hello x 1 proto=1 kind=complete", &h, err) < 0 && strstr(err, "sizes"), "no sizes: refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-9", &h, err) < 0 && strstr(err, "sizes=2-9"),
	   "sizes=2-9 is refused: %s", err);
	ok(hello("hello x 1 proto=1 kind=complete sizes=1-8", &h, err) < 0, "sizes=1-8 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=5-3", &h, err) < 0, "sizes=5-3 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8x", &h, err) < 0, "sizes=2-8x is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=+2-8", &h, err) < 0, "sizes=+2-8 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=-2-8", &h, err) < 0, "sizes=-2-8 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=3", &h, err) < 0, "sizes=3 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2--8", &h, err) < 0, "sizes=2--8 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=02-08", &h, err) == 0 && h.min_box == 2 && h.max_box == 8,
	   "sizes with leading zeros are numbers all the same");

	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8 batch=0", &h, err) < 0 && strstr(err, "batch=0"),
	   "batch=0 is refused: %s", err);
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8 batch=4x", &h, err) < 0, "batch=4x is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8 batch=-4", &h, err) < 0, "batch=-4 is refused");
	ok(hello("hello x 1 proto=1 kind=complete sizes=2-8 batch=99999999999", &h, err) == 0 && h.batch == INT_MAX,
	   "a batch past INT_MAX counts as INT_MAX");

	ok(parse("pong 3") == 0 && msg_read_hello(&m, &h, err, sizeof err) < 0, "a pong is not a hello");

	/* written and read back */
	static char out[PROTO_LINE_MAX];
	const struct msg_hello w = {.name = "sat", .version = "1.2", .complete = true, .min_box = 3, .max_box = 6,
				    .device = "cpu", .detail = "CaDiCaL 1.9", .batch = 3};
	ok(msg_write_hello(out, sizeof out, &w) > 0, "a hello written");
	out[strlen(out) - 1] = '\0';
	ok(hello(out, &h, err) == 0 && h.proto == PROTO_VERSION && h.complete && h.min_box == 3 &&
		   h.max_box == 6 && h.batch == 3 && strcmp(h.name, "sat") == 0 && strcmp(h.detail, "CaDiCaL_1.9") == 0,
	   "reads back");

	/* the detail for people */
	char d[16];
	msg_hello_detail("NVIDIA_H100", d, sizeof d);
	is_str(d, "NVIDIA H100", "'_' are spaces again");
	msg_hello_detail(NULL, d, sizeof d);
	is_str(d, "", "no detail: empty");
	msg_hello_detail("no_CUDA_device_found_here", d, sizeof d);
	is_str(d, "no CUDA...", "too long: cut after a word");
	msg_hello_detail("abcdefghijklmnopqrstuvwxyz", d, sizeof d);
	is_str(d, "abcdefghijkl...", "one long word: cut where it must");
	msg_hello_detail("abcdefghijklm_op", d, sizeof d);
	is_str(d, "abcdefghijkl...", "a '_' too near the end: the cut is made before it, in the buffer");
}

static void test_solve(void)
{
	struct msg_solve s;
	char err[128] = "";
	const struct msg_solve_fields dflt = {.count = 1, .limit_ms = 5000, .has_seed = true, .seed = 42};
	ok(solve("solve p1 1.3..4.2.1..3..1", &dflt, &s, err) == 0, "a solve reads");
	is_str(s.id, "p1", "its id");
	ok(s.grid && s.grid_len == 16 && strncmp(s.grid, "1.3..4.2.1..3..1", 16) == 0, "its grid word");
	ok(s.f.count == 1 && s.f.limit_ms == 5000 && s.f.progress_ms == 0 && s.f.has_seed && s.f.seed == 42,
	   "absent fields are the defaults");
	ok(solve("solve 7 1.3..4.2.1..3..1 count=2 limit_ms=0 progress_ms=50 seed=18446744073709551615 x=y", &dflt,
		 &s, err) == 0,
	   "every field");
	ok(s.f.count == 2 && s.f.limit_ms == 0 && s.f.progress_ms == 50 && s.f.seed == 18446744073709551615u,
	   "read as sent; limit_ms=0 is none, not the default");
	ok(solve("solve 7 1.3..4.2.1..3..1 seed=1 seed=x", NULL, &s, err) == 0 && s.f.seed == 1 && s.f.has_seed,
	   "the first of a key counts");
	ok(solve("solve 7 1.3..4.2.1..3..1", NULL, &s, err) == 0 && !s.f.has_seed && s.f.count == 0,
	   "no defaults: zeros");
	ok(solve("solve 7 1.3..4.2.1..3..1 limit_ms=1x", &dflt, &s, err) < 0 && strstr(err, "limit_ms=1x"),
	   "limit_ms=1x is refused: %s", err);
	ok(s.f.limit_ms == 5000 && strcmp(s.id, "7") == 0, "the fields are the defaults, the id is set");
	ok(solve("solve 7 1.3..4.2.1..3..1 count=0", &dflt, &s, err) < 0, "count=0 is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 count=-2", &dflt, &s, err) < 0, "count=-2 is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 count=+2", &dflt, &s, err) < 0, "count=+2 is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 count=1125899906842624", &dflt, &s, err) == 0 &&
		   s.f.count == PROTO_COUNT_MAX,
	   "count=2^50 is the most");
	ok(solve("solve 7 1.3..4.2.1..3..1 count=1125899906842625", &dflt, &s, err) < 0, "one more is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 progress_ms=1099511627777", &dflt, &s, err) < 0,
	   "progress_ms past 2^40 is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 seed=18446744073709551616", &dflt, &s, err) < 0,
	   "a seed past 64 bits is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 seed=-1", &dflt, &s, err) < 0, "a negative seed is refused");
	ok(solve("solve 7 1.3..4.2.1..3..1 seed=", &dflt, &s, err) < 0, "an empty seed is refused");
}

static void test_reply(void)
{
	struct msg_reply r;
	char err[128] = "";
	ok(reply("solution 17 1234341221434321 nodes=15 ms=0.034", &r, err) == MSG_READ_OK, "a solution reads");
	ok(r.type == MSG_SOLUTION && r.has_id && r.id == 17, "its id, a number");
	ok(r.grid && r.grid_len == 16 && strcmp(r.grid, "1234341221434321") == 0, "its grid");
	ok(r.has_nodes && r.nodes == 15 && r.has_ms && r.ms == 0.034, "nodes and ms");
	ok(reply("solution 3 1234341221434321", &r, err) == MSG_READ_OK && !r.has_ms && r.ms == 0 && !r.has_nodes,
	   "ms absent: 0");
	ok(reply("solution 3 1234341221434321 ms=12", &r, err) == MSG_READ_OK && r.ms == 12, "ms without a point");
	ok(reply("solution 3 1234341221434321 ms=1234567.125", &r, err) == MSG_READ_OK && r.ms == 1234567.125,
	   "ms exactly");
	ok(reply("solution 3 1234341221434321 ms=0.1234567890123456789012", &r, err) == MSG_READ_OK &&
		   r.ms > 0.1234567890 && r.ms < 0.1234567891,
	   "ms with more digits than a double holds");
	ok(reply("solution 3 1234341221434321 ms=1000000000000000.000", &r, err) == MSG_READ_OK && r.ms == 1e15,
	   "a large ms, as %%.3f writes it");
	ok(reply("solution 18446744073709551615 1234", &r, err) == MSG_READ_OK && r.id == UINT64_MAX,
	   "the largest id");

	const char *garbage[] = {"ms=abc", "ms=1e3", "ms=-1", "ms=+1", "ms=1.", "ms=.5", "ms=1.2.3",
				 "ms=", "ms=1,5", "ms=0x10", "ms=12345678901234567890", "ms=inf", "ms=nan"};
	for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
		char text[96];
		snprintf(text, sizeof text, "solution 3 1234341221434321 %s", garbage[i]);
		ok(reply(text, &r, err) == MSG_READ_BAD_FIELD && r.has_id && r.id == 3 && r.ms == 0,
		   "%s is refused, the id kept: %s", garbage[i], err);
	}
	ok(reply("solution 3 1234341221434321 nodes=1x", &r, err) == MSG_READ_BAD_FIELD && strstr(err, "nodes"),
	   "nodes=1x is refused");
	ok(reply("solution 3 1234341221434321 nodes=18446744073709551616", &r, err) == MSG_READ_BAD_FIELD,
	   "nodes past 64 bits is refused");
	ok(reply("solution 3 1234341221434321 ms=1 ms=x", &r, err) == MSG_READ_OK && r.ms == 1,
	   "the first of a key counts");

	ok(reply("solution 18446744073709551616 1234", &r, err) == MSG_READ_BAD_ID && !r.has_id,
	   "an id past 64 bits is refused: %s", err);
	ok(reply("solution p1 1234", &r, err) == MSG_READ_BAD_ID, "an id not a number is refused");
	ok(reply("cancelled 1a", &r, err) == MSG_READ_BAD_ID, "1a is not an id either");
	ok(reply("unsat -1", &r, err) == MSG_READ_BAD_ID, "nor -1");
	ok(reply("unsat 007", &r, err) == MSG_READ_OK && r.id == 7, "leading zeros: a number all the same");

	ok(reply("count 9 2 1234341221434321 nodes=7 ms=0.013", &r, err) == MSG_READ_OK, "a count reads");
	ok(r.type == MSG_COUNT && r.id == 9 && r.count == 2 && r.grid && strcmp(r.grid, "1234341221434321") == 0,
	   "K and its grid");
	ok(reply("count 9 0 reason=clash", &r, err) == MSG_READ_OK && r.count == 0 && !r.grid &&
		   r.reason && strcmp(r.reason, "clash") == 0,
	   "count 0, no grid, a reason");
	ok(reply("count 9 -1", &r, err) == MSG_READ_BAD_FIELD && r.id == 9, "a negative count is refused: %s", err);
	ok(reply("count 9 2x 1234", &r, err) == MSG_READ_BAD_FIELD, "count 2x is refused");
	ok(reply("count 9 +2 1234", &r, err) == MSG_READ_BAD_FIELD, "count +2 is refused");
	ok(reply("count 9 1125899906842625 1234", &r, err) == MSG_READ_BAD_FIELD, "a count past its bound is refused");
	ok(reply("count 9 1125899906842624 1234", &r, err) == MSG_READ_OK && r.count == PROTO_COUNT_MAX,
	   "the largest count");

	ok(reply("unsat 4 nodes=1 ms=0.001 reason=clash", &r, err) == MSG_READ_OK && r.type == MSG_UNSAT &&
		   r.id == 4 && r.ms == 0.001 && strcmp(r.reason, "clash") == 0,
	   "unsat with its fields");
	ok(reply("unsat 4", &r, err) == MSG_READ_OK && !r.reason && !r.grid, "a bare unsat");
	ok(reply("gaveup 5 timeout ms=12.500", &r, err) == MSG_READ_OK && r.type == MSG_GAVEUP &&
		   strcmp(r.reason, "timeout") == 0 && r.ms == 12.5,
	   "gaveup: its reason and ms");
	ok(reply("gaveup 5", &r, err) == MSG_READ_OK && r.reason == NULL, "gaveup without a reason");
	ok(reply("cancelled 6", &r, err) == MSG_READ_OK && r.type == MSG_CANCELLED && r.id == 6, "cancelled");
	ok(reply("error 7 invalid puzzle: ms=x", &r, err) == MSG_READ_OK && r.type == MSG_ERROR && r.id == 7 &&
		   !r.has_ms,
	   "an error's words are text, never fields");
	ok(reply("error - line 3 is too long", &r, err) == MSG_READ_OK && !r.has_id, "error - is about no request");
	ok(reply("error x line 3 is too long", &r, err) == MSG_READ_BAD_ID, "error with an id not ours");
	ok(reply("progress 8 depth=3 nodes=x ms=y", &r, err) == MSG_READ_OK && r.type == MSG_PROGRESS && r.id == 8,
	   "progress: its id; its fields are the worker's own");
	ok(reply("progress q depth=3", &r, err) == MSG_READ_BAD_ID, "progress with an id not ours");

	ok(reply("pong 3", &r, err) == MSG_READ_OTHER, "pong is not a reply");
	ok(reply("hello cp 1 proto=1", &r, err) == MSG_READ_OTHER, "nor hello");
	ok(reply("solve 3 1234", &r, err) == MSG_READ_OTHER, "nor solve");
	ok(reply("whatever 3", &r, err) == MSG_READ_OTHER, "nor an unknown type");
	ok(parse("solution 5 1234 ms=0.5") == 0 && msg_read_reply(&m, &r, NULL, 0) == MSG_READ_OK,
	   "err may be NULL");
	ok(parse("solution 5 1234 ms=x") == 0 && msg_read_reply(&m, &r, NULL, 0) == MSG_READ_BAD_FIELD,
	   "also when it fails");

	/* what the writers write reads back */
	static char out[PROTO_LINE_MAX];
	union grid_room g4_room;
	struct grid *g4 = &g4_room.grid;
	grid_init(g4, 2);
	msg_parse_grid("1234341221434321", 16, 2, g4);
	const struct msg_effort eff = {15, 1.5};
	msg_write_solution(out, sizeof out, "12", g4, &eff);
	out[strlen(out) - 1] = '\0';
	ok(reply(out, &r, err) == MSG_READ_OK && r.id == 12 && r.nodes == 15 && r.ms == 1.5, "a written solution");
	msg_write_count(out, sizeof out, "13", 1, g4, &eff, NULL);
	out[strlen(out) - 1] = '\0';
	ok(reply(out, &r, err) == MSG_READ_OK && r.count == 1 && r.grid_len == 16, "a written count");
	msg_write_gaveup(out, sizeof out, "14", "iterations", 2.25);
	out[strlen(out) - 1] = '\0';
	ok(reply(out, &r, err) == MSG_READ_OK && r.ms == 2.25 && strcmp(r.reason, "iterations") == 0,
	   "a written gaveup");
}

static void test_field_numbers(void)
{
	bool bad = false;
	ok(parse("solve 1 1234 a=+5 b=-5 c=5 d=18446744073709551615 e=") == 0, "fields to read");
	ok(msg_field_long(&m, "a", 9, 0, 10, &bad) == 9 && bad, "msg_field_long refuses a '+'");
	bad = false;
	ok(msg_field_long(&m, "b", 9, -10, 10, &bad) == -5 && !bad, "takes a '-' when min is below 0");
	ok(msg_field_long(&m, "b", 9, 0, 10, &bad) == 9 && bad, "and not otherwise");
	bad = false;
	ok(msg_field_long(&m, "c", 9, 0, 4, &bad) == 9 && bad, "refuses a value over max");
	bad = false;
	ok(msg_field_u64(&m, "d", 0, &bad) == UINT64_MAX && !bad, "msg_field_u64 reads 64 bits");
	ok(msg_field_u64(&m, "a", 0, &bad) == 0 && bad, "and refuses a '+'");
	bad = false;
	ok(msg_field_u64(&m, "e", 3, &bad) == 3 && bad, "and an empty value");
}

static void test_record(void)
{
	union grid_room g4_room;
	struct grid *g4 = &g4_room.grid;
	grid_init(g4, 2);
	msg_parse_grid("1.3..4.2.1..3..1", 16, 2, g4);
	struct msg_solve_record r;
	int n;
	msg_solve_record_init(&r);
	ok(msg_solve_emit(&r, true, (struct msg_span[2]){{0}}) == 0, "an empty record emits nothing");

	const struct msg_solve_fields f = {.count = 2, .limit_ms = 100, .progress_ms = 50, .has_seed = true, .seed = 7};
	ok(msg_solve_record_make(&r, "17", g4, &f) ==
		   (int)strlen("solve 17 1.3..4.2.1..3..1 count=2 limit_ms=100 progress_ms=50 seed=7\n"),
	   "a record is made; its length returned");
	ok(r.line == r.small, "a small grid's line is kept in the record");
	is_str(emitted(&r, true, &n), "solve 17 1.3..4.2.1..3..1 count=2 limit_ms=100 progress_ms=50 seed=7\n",
	       "with its seed: the whole line");
	ok(n == 1, "in one part");
	is_str(emitted(&r, false, &n), "solve 17 1.3..4.2.1..3..1 count=2 limit_ms=100 progress_ms=50\n",
	       "without its seed: the line cut before it, with its LF");
	ok(n == 2, "in two parts");

	const struct msg_solve_fields noseed = {.limit_ms = 100};
	ok(msg_solve_record_make(&r, "18", g4, &noseed) > 0, "made again: the old line is dropped");
	is_str(emitted(&r, true, &n), "solve 18 1.3..4.2.1..3..1 limit_ms=100\n", "no seed field: the line");
	ok(n == 1, "in one part");
	is_str(emitted(&r, false, &n), "solve 18 1.3..4.2.1..3..1 limit_ms=100\n", "the same without the seed");
	ok(n == 1, "in one part too");
	ok(msg_solve_record_make(&r, "19", g4, NULL) > 0, "no fields at all");
	is_str(emitted(&r, false, &n), "solve 19 1.3..4.2.1..3..1\n", "the bare line");

	/* every field, at its largest, on a 9x9 grid: still kept inside */
	union grid_room g9_room;
	struct grid *g9 = &g9_room.grid;
	grid_init(g9, 3);
	const struct msg_solve_fields most = {.count = PROTO_COUNT_MAX, .limit_ms = PROTO_MS_MAX,
					      .progress_ms = PROTO_MS_MAX, .has_seed = true, .seed = UINT64_MAX};
	ok(msg_solve_record_make(&r, "18446744073709551615", g9, &most) > 0 && r.line == r.small,
	   "a 9x9 solve with every field at its largest fits the record");
	char want[256];
	char cells[82];
	memset(cells, '.', 81);
	cells[81] = '\0';
	snprintf(want, sizeof want,
		 "solve 18446744073709551615 %s count=1125899906842624 limit_ms=1099511627776 "
		 "progress_ms=1099511627776 seed=18446744073709551615\n",
		 cells);
	is_str(emitted(&r, true, &n), want, "and is whole");

	/* a large grid: allocated, both forms right */
	union grid_room g64_room;
	struct grid *g64 = &g64_room.grid;
	grid_init(g64, 8);
	for (int i = 0; i < g64->cells; i++)
		g64->cell[i] = (uint8_t)(i % 65);
	const struct msg_solve_fields seeded = {.has_seed = true, .seed = 99};
	n = msg_solve_record_make(&r, "20", g64, &seeded);
	ok(n > 0 && r.line != r.small, "a 64x64 grid's line is allocated");
	static char direct[PROTO_LINE_MAX];
	size_t before = 0;
	int m2 = msg_write_solve(direct, sizeof direct, "20", g64, &seeded, &before);
	ok(m2 == n && strcmp(emitted(&r, true, &n), direct) == 0, "the same line msg_write_solve writes");
	direct[before] = '\n';
	direct[before + 1] = '\0';
	ok(strcmp(emitted(&r, false, &n), direct) == 0, "and without its seed, its part before the seed");
	msg_solve_record_clear(&r);
	ok(r.line == NULL && msg_solve_emit(&r, true, (struct msg_span[2]){{0}}) == 0, "cleared: empty");
	msg_solve_record_clear(&r);
	ok(r.line == NULL, "clearing twice is harmless");

	/* a slot of zeros (the racer's ring) holds an empty record */
	struct msg_solve_record z;
	memset(&z, 0, sizeof z);
	ok(msg_solve_emit(&z, true, (struct msg_span[2]){{0}}) == 0, "a zeroed record is empty");
	msg_solve_record_clear(&z);
	ok(msg_solve_record_make(&z, "21", g4, NULL) > 0, "and can be made");
	is_str(emitted(&z, true, &n), "solve 21 1.3..4.2.1..3..1\n", "its line");
	msg_solve_record_clear(&z);
}

int main(void)
{
	test_hello();
	test_solve();
	test_reply();
	test_field_numbers();
	test_record();
	return tap_done();
}

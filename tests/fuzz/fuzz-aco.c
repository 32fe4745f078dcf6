/* Fuzz target: the ACO paper's instance files (an order line n, an optional
 * "1" line, then n^2 rows of numbers, -1 blank), read by the puzzle stream.
 * The first byte picks the order and whether the "1" line comes, so that
 * every input reaches the instance reader; the rest are its rows. */
#include "config.h"

#include "fuzz_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static struct puzzle_stream ps;
	char head[8];
	int order = 2 + data[0] % 7;
	int n = snprintf(head, sizeof head, "%d\n%s", order, data[0] & 0x80 ? "1\n" : "");
	puzzle_stream_init(&ps);
	/* the head alone starts an instance and reports nothing */
	static struct stream_item item;
	bool again;
	fuzz_check(puzzle_stream_feed(&ps, head, 1, 1, &item, &again) == STREAM_NONE && !again);
	long lineno = 1;
	if (n > 2) {
		fuzz_check(puzzle_stream_feed(&ps, "1", 1, 2, &item, &again) == STREAM_NONE && !again);
		lineno = 2;
	}
	fuzz_feed(&ps, data + 1, size - 1, lineno);
	return 0;
}

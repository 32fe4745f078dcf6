/* The worker driver: everything around an algorithm. Filter mode (files or
 * standard input to one answer line per puzzle), protocol mode (PROTOCOL.md),
 * options, clocks, progress, counting. The algorithm is the one object file
 * linked beside the driver's (worker_algorithm, see worker.h); driver.h
 * lists the driver's files. This one: main, the options' values, the device. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "driver.h"

struct driver_options opt = {.count_limit = 1, .progress_ms = 250};

struct worker_init device = {.device = "cpu"};

int batch_threads(int max)
{
	int n = device.batches < 1 ? 2 : device.batches;
	return n < max ? n : max;
}

/* Whether this worker takes grids of box size box (the device may take
 * fewer than the algorithm). */
bool size_supported(int box)
{
	return box >= ALGO.min_box && box <= ALGO.max_box && box <= device.max_box;
}

int main(int argc, char **argv)
{
	static char name[64];
	snprintf(name, sizeof name, "sudoku-%s", ALGO.name);
	common_set_program(name);
	uint64_t start_ns = now_ns();
	int first = parse_options(argc, argv);
	device.max_box = ALGO.max_box;
	if (!opt.protocol && ALGO.solve_batch)
		return pipeline_main(argc, argv, first, start_ns);
	if (ALGO.init) {
		char msg[256] = "";
		if (ALGO.init(&device, msg, sizeof msg) < 0)
			usage_error("%s", msg);
	}
	if (!opt.protocol && strcmp(device.device, "none") == 0) {
		fprintf(stderr, "%s: no usable device%s%s\n", program, device.detail[0] ? ": " : "",
			device.detail);
		return 2;
	}
	if (opt.protocol)
		return protocol_main();
	return filter_main(argc, argv, first);
}


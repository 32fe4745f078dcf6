/* The worker driver: everything around an algorithm. Filter mode (files or
 * standard input to one answer line per puzzle), protocol mode (PROTOCOL.md),
 * options, clocks, progress, counting. The algorithm is the one object file
 * linked beside the driver's (worker_algorithm, see worker.h); driver.h
 * lists the driver's files. This one: main, which picks the mode. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "driver.h"

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


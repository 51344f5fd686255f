#include "tool.h"
int cmd_lint(int argc, char **argv) { return tool_fail("lint: not built yet"); }

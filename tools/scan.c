#include "tool.h"
int cmd_scan(int argc, char **argv) { return tool_fail("scan: not built yet"); }

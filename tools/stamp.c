#include "tool.h"
int cmd_stamp(int argc, char **argv) { return tool_fail("stamp: not built yet"); }

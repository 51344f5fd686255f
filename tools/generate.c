#include "tool.h"
int cmd_generate(int argc, char **argv) { return tool_fail("generate: not built yet"); }

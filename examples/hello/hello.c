/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "greet.h"

int main(int argc, char **argv)
{
        return greet(argc > 1 ? argv[1] : "world") == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

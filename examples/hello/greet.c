/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "greet.h"

int greet(const char *who)
{
        return printf("Hello, %s!\n", who) < 0 ? -1 : 0;
}

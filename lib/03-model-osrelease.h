/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* os-release and distribution package formats (lib/03-model-osrelease.c). */
#pragma once

#include <stdbool.h>

/* Is TYPE ("deb", "rpm", ...) the package format of some distribution
 * pkgnote_os_release_package_type() knows? */
bool pn_is_distro_package_type(const char *type);

/* SPDX-License-Identifier: MIT */
/* The gmprof version. */
#ifndef GMPROF_VERSION_H
#define GMPROF_VERSION_H

#define GMPROF_VERSION "0.1.0"

#endif

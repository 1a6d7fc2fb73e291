/* SPDX-License-Identifier: MIT */
#ifndef GMPROF_DEMANGLE_H
#define GMPROF_DEMANGLE_H

/*
 * Demangles a C++ name ("_Z...") with the C++ runtime's __cxa_demangle,
 * found in the process or loaded from libstdc++ on first use; returns a
 * malloc'd string, or NULL (not a C++ name, or no demangler).  Shared by
 * the analyzer and the collector's exit summary.
 */
char *gmp_demangle(const char *mangled);

#endif

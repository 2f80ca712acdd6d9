/* SPDX-License-Identifier: GPL-2.0 */
/* The one place the version lives: the module, the tool and dkms.conf read it. */
#ifndef NA_VERSION_H
#define NA_VERSION_H
#define NA_VERSION "0.1.0"
#endif

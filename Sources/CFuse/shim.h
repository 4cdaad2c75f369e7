#ifndef BUNDLEFS_CFUSE_SHIM_H
#define BUNDLEFS_CFUSE_SHIM_H

/* The low-level libfuse 3 API as Debian 12 ships it (3.14). */
#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#endif

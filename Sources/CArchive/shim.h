// libarchive (Debian's libarchive-dev): zip, tar with every common compression, xar, cpio.
#include <archive.h>
#include <archive_entry.h>

// libarchive (Debian's libarchive-dev): zip, tar with every common compression, xar, cpio.
#include <archive.h>
#include <archive_entry.h>
// zlib (which libarchive links): a xar's table of contents is inflated once before libarchive
// reads it, to count what it lists (`XarTableOfContents`).
#include <zlib.h>

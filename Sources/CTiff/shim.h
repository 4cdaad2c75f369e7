// libtiff (Debian's libtiff-dev): GNUstep's .tiff icons, several images per file.
#include <tiffio.h>

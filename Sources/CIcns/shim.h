// libicns (Debian's libicns-dev): the old RLE-packed icon members and JPEG 2000 (through openjpeg).
#include <stdio.h>
#include <icns.h>

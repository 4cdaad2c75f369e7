// libpng (Debian's libpng-dev): its simplified API writes the view's Icon.png and reads PNGs.
#include <png.h>

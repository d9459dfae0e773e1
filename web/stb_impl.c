/* stb's image reader and writer for the browser build: on the desktop they come compiled in
   Debian's libstb; here, the same Debian headers compiled once (cmake/web.cmake). */
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

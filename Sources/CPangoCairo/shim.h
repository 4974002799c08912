// Pango (text layout and shaping, with HarfBuzz and fontconfig underneath) drawn by Cairo into
// a PDF surface: the one PDF renderer of GriotExport.
#include <pango/pangocairo.h>
#include <cairo-pdf.h>

// For `tsc -p tsconfig.web.json` only (the client itself is plain JavaScript): every element the
// client finds with querySelector is an HTML or an SVG element, which share `dataset`, `focus()`
// and `tabIndex` (the HTMLOrSVGElement mixin).
interface Element extends HTMLOrSVGElement {}

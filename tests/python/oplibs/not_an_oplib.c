/* A shared library that is neither kind mxffi loads: no MXFFIOpLib* surface, no registrations. */
__attribute__((visibility("default"))) int plain_function(int x) { return 2 * x; }

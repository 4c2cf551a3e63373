// The translation unit the shared precompiled header is built with (CORDON_PCH): empty, the
// header list is in cmake/CordonLayers.cmake.

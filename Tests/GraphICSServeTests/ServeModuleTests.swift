import Testing

@testable import GraphICSServe

// The suites of GraphICSServe live beside this file, one per part (HTTP/, Feeds/, Refresh/).

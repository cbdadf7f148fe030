// The loopback Microsoft Graph stand-in; see GraphStandIn.swift.

import Foundation
import TestSupport
import Testing

@testable import GraphICSDAV

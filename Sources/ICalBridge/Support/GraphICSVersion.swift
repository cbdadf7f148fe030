import Foundation

/// The version graph-ics reports and writes into PRODID.
public enum GraphICSVersion {
    public static let version = "0.1.0"
    public static let productID = "-//graph-ics//graph-ics \(version)//EN"
}

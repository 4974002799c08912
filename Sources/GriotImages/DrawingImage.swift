import Foundation

/// Uploaded drawings: what they are, their metadata stripped, and their thumbnails.
public enum DrawingImage {}

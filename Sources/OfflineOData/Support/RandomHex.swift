/// `count` bytes from the system's random generator (boundaries, client ids, Guids).
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// The bytes as lowercase hexadecimal digits, two per byte.
func hexText<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 15)])
    }
    return text
}

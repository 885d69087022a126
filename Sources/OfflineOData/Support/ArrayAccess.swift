/// Reading an array where an index comes from data: no trap outside the array.
extension Array {
    /// The element at `index`, nil outside the array.
    func element(at index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

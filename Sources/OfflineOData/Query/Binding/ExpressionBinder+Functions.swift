/// The canonical functions of URL Conventions §5.1.1.4-7: argument types, literal arguments typed
/// against the parameter, and result types.
extension ExpressionBinder {
    private enum Parameter {
        case string, integer, dateLike, timeLike, instant, numeric, duration

        // The signatures' parameter lists, built once instead of at every call.
        static let oneString: [Parameter] = [.string]
        static let twoStrings: [Parameter] = [.string, .string]
        static let threeStrings: [Parameter] = [.string, .string, .string]
        static let substring2: [Parameter] = [.string, .integer]
        static let substring3: [Parameter] = [.string, .integer, .integer]
        static let oneDateLike: [Parameter] = [.dateLike]
        static let oneTimeLike: [Parameter] = [.timeLike]
        static let oneInstant: [Parameter] = [.instant]
        static let oneDuration: [Parameter] = [.duration]
        static let oneNumeric: [Parameter] = [.numeric]
    }

    mutating func bindFunction(_ function: CanonicalFunction, _ arguments: [ExpressionSyntax], range: SourceRange) throws(ODataError) -> BoundExpression {
        if function == .substringof {
            // V2 substringof(needle, haystack) is V4 contains(haystack, needle).
            guard arguments.count == 2, let needle = arguments.first, let haystack = arguments.last else {
                throw binder.semantic("substringof takes 2 arguments", at: range)
            }
            return try bindFunction(.contains, [haystack, needle], range: range)
        }
        let signature: ([Parameter], BoundType?)
        switch function {
        case .contains, .startswith, .endswith: signature = (Parameter.twoStrings, .primitive(.boolean))
        case .indexof: signature = (Parameter.twoStrings, .primitive(.int32))
        case .concat: signature = (Parameter.twoStrings, .primitive(.string))
        case .replace: signature = (Parameter.threeStrings, .primitive(.string))
        case .length: signature = (Parameter.oneString, .primitive(.int32))
        case .tolower, .toupper, .trim: signature = (Parameter.oneString, .primitive(.string))
        case .substring: signature = (arguments.count == 3 ? Parameter.substring3 : Parameter.substring2, .primitive(.string))
        case .year, .month, .day: signature = (Parameter.oneDateLike, .primitive(.int32))
        case .hour, .minute, .second: signature = (Parameter.oneTimeLike, .primitive(.int32))
        case .fractionalseconds: signature = (Parameter.oneTimeLike, .primitive(.decimal))
        case .date: signature = (Parameter.oneInstant, .primitive(.date))
        case .time: signature = (Parameter.oneInstant, .primitive(.timeOfDay))
        case .totaloffsetminutes: signature = (Parameter.oneInstant, .primitive(.int32))
        case .totalseconds: signature = (Parameter.oneDuration, .primitive(.decimal))
        case .now, .mindatetime, .maxdatetime: signature = ([], .primitive(.dateTimeOffset))
        case .round, .floor, .ceiling: signature = (Parameter.oneNumeric, nil)
        case .isof, .cast:
            return try bindTypeFunction(function, arguments, range: range)
        case .matchesPattern: signature = (Parameter.twoStrings, .primitive(.boolean))
        case .hassubset, .hassubsequence:
            throw binder.unsupported("\(function.rawValue) is not supported in offline $filter", at: range)
        case .substringof:
            throw ODataError(.internalError, "substringof was rewritten above")
        }
        let (parameters, fixedResult) = signature
        guard parameters.count == arguments.count else {
            throw binder.semantic("\(function.rawValue) takes \(parameters.count) argument(s), not \(arguments.count)", at: range)
        }
        var bound: [BoundExpression] = []
        bound.reserveCapacity(arguments.count)
        for index in arguments.indices {
            // By index: the argument is passed in place instead of copied out by an iterator.
            bound.append(try bindArgument(arguments[index], as: parameters[index], of: function))
        }
        if function == .matchesPattern, bound.count == 2, case .literal(.text(let pattern)) = bound[1].kind {
            // A written pattern is checked here, where the error can point at it.
            do throws(ODataError) { _ = try MatchPattern(pattern) } catch { throw binder.semantic(error.message, at: bound[1].range) }
        }
        // round/floor/ceiling keep their argument's type.
        let result = fixedResult ?? bound.first?.type ?? .null
        return BoundExpression(.function(function, bound), type: result, range: range)
    }

    private mutating func bindArgument(_ argument: ExpressionSyntax, as parameter: Parameter, of function: CanonicalFunction) throws(ODataError) -> BoundExpression {
        if let literal = literalSyntax(argument) {
            let preferred: PrimitiveType? = switch parameter {
            case .string: .string
            case .integer: .int32
            case .duration: .duration
            default: nil
            }
            if let preferred {
                if case .null = literal.kind { return BoundExpression(.null, type: .null, range: argument.range) }
                let target: PrimitiveType = (preferred == .int32 && LiteralCoercion.naturalType(literal) == .int64) ? .int64 : preferred
                guard let value = LiteralCoercion.value(literal, as: target) else {
                    throw binder.semantic("\(function.rawValue) needs \(target.rawValue) here, not the literal \(literal.text)", at: literal.range)
                }
                return BoundExpression(.literal(value), type: .primitive(target), range: literal.range)
            }
        }
        let bound = try bind(argument)
        if bound.type == .null { return bound }
        guard let type = bound.type.primitive, accepts(parameter, type) else {
            throw binder.semantic("\(function.rawValue) cannot take \(bound.type) here", at: argument.range)
        }
        return bound
    }

    private func accepts(_ parameter: Parameter, _ type: PrimitiveType) -> Bool {
        switch parameter {
        case .string: type == .string
        case .integer: TypePromotion.isInteger(type)
        case .dateLike: [.date, .dateTime, .dateTimeOffset].contains(type)
        case .timeLike: [.dateTime, .dateTimeOffset, .timeOfDay, .time].contains(type)
        case .instant: [.dateTime, .dateTimeOffset].contains(type)
        case .numeric: TypePromotion.isNumeric(type)
        case .duration: type == .duration
        }
    }
}

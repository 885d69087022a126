/// Operations, entity containers and navigation property bindings resolve.
extension ModelValidator {
    /// Resolves parameter and return types. A *bound* operation whose types do not resolve is
    /// dropped as a tolerated defect (the SAP Cloud SDK's V4 test service binds one to a type it
    /// misnames): nothing imports a bound operation, so nothing else depends on it. Unbound
    /// operations with dangling types are errors.
    mutating func resolveOperations() throws(ODataError) {
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            var kept: [Operation] = []
            kept.reserveCapacity(schemas[s].operations.count)
            for var operation in schemas[s].operations {
                do {
                    try resolveSignature(&operation, in: namespace)
                    kept.append(operation)
                } catch {
                    guard operation.isBound else { throw error }
                    droppedOperations.insert(operation.qualifiedName)
                    var defect = error
                    defect.message += "; the bound \(operation.kind.rawValue.lowercased()) is left out of the model"
                    try tolerate(defect)
                }
            }
            schemas[s].operations = kept
        }
    }

    private func resolveSignature(_ operation: inout Operation, in namespace: String) throws(ODataError) {
        // Only built for a message.
        let (kind, name) = (operation.kind, operation.name)
        var what: String { "\(kind.rawValue) \(name)" }
        for p in operation.parameters.indices {
            let parameter = operation.parameters[p]
            try resolve(&operation.parameters[p].type, in: namespace, what: "Parameter \(parameter.name) of \(what)",
                        at: parameter.sourceLine, element: "Parameter")
        }
        if var returnType = operation.returnType {
            try resolve(&returnType.type, in: namespace, what: "the ReturnType of \(what)", at: operation.sourceLine,
                        element: "ReturnType")
            operation.returnType = returnType
        }
    }

    /// The overloads of a V4 operation by qualified name.
    func overloads(of qualifiedName: String) -> [Operation] {
        operationIndex.overloads[qualifiedName] ?? []
    }

    mutating func resolveContainers() throws(ODataError) {
        var overloads: [String: [Operation]] = [:]
        for schema in schemas {
            for operation in schema.operations { overloads[operation.qualifiedName, default: []].append(operation) }
        }
        operationIndex.overloads = overloads
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            for c in schemas[s].entityContainers.indices {
                var container = schemas[s].entityContainers[c]
                dropImportsOfDroppedOperations(&container, in: namespace)
                try resolveContainer(&container, in: namespace, diagnostics: &diagnostics)
                schemas[s].entityContainers[c] = container
            }
        }
    }

    /// Imports of operations that were left out go too (the SAP Cloud SDK's V4 test service
    /// imports the bound function it misdeclares); the reason is already in the diagnostics.
    private mutating func dropImportsOfDroppedOperations(_ container: inout EntityContainer, in namespace: String) {
        guard !droppedOperations.isEmpty else { return }
        container.functionImports.removeAll { functionImport in
            guard let function = functionImport.function, droppedOperations.contains(qualify(function, in: namespace)) else { return false }
            diagnostics.append(fault("FunctionImport \(functionImport.name) imports \(function), which was left out of the model; the import is dropped",
                                     at: functionImport.sourceLine, element: "FunctionImport", attribute: "Function"))
            return true
        }
        container.actionImports.removeAll { actionImport in
            guard droppedOperations.contains(qualify(actionImport.action, in: namespace)) else { return false }
            diagnostics.append(fault("ActionImport \(actionImport.name) imports \(actionImport.action), which was left out of the model; the import is dropped",
                                     at: actionImport.sourceLine, element: "ActionImport", attribute: "Action"))
            return true
        }
    }

    private func resolveContainer(_ container: inout EntityContainer, in namespace: String,
                                  diagnostics: inout [ODataError]) throws(ODataError) {
        if let extends = container.extends {
            let name = qualify(extends, in: namespace)
            let isExternal = externalNamespaces.contains(self.namespace(of: name))
            guard case .entityContainer = declarations[name] else {
                if isExternal { container.extends = name; return try resolveContainerContents(&container, in: namespace, diagnostics: &diagnostics) }
                throw fault("EntityContainer \(container.name) extends \(name), which is not an entity container of the document",
                            at: container.sourceLine, element: "EntityContainer", attribute: "Extends")
            }
            container.extends = name
        }
        try resolveContainerContents(&container, in: namespace, diagnostics: &diagnostics)
    }

    /// The container's members with their types, functions and actions qualified and checked,
    /// in the order a reader meets them (sets, singletons, function imports, action imports).
    private func resolveContainerContents(_ container: inout EntityContainer, in namespace: String,
                                          diagnostics: inout [ODataError]) throws(ODataError) {
        try resolveSetsAndSingletons(&container, in: namespace)
        try resolveFunctionImports(&container, in: namespace, diagnostics: &diagnostics)
        try resolveActionImports(&container, in: namespace, diagnostics: &diagnostics)
    }

    /// Each entity set's and singleton's type qualified and found; their names unique.
    private func resolveSetsAndSingletons(_ container: inout EntityContainer, in namespace: String) throws(ODataError) {
        var names: Set<String> = []
        for e in container.entitySets.indices {
            let set = container.entitySets[e]
            if !names.insert(set.name).inserted {
                throw fault("EntityContainer \(container.name) declares \(set.name) twice", at: set.sourceLine, element: "EntitySet", attribute: "Name")
            }
            let typeName = qualify(set.entityType, in: namespace)
            guard entityType(named: typeName) != nil else {
                throw fault("EntitySet \(set.name) has the EntityType \(typeName), which is not an entity type of the document",
                            at: set.sourceLine, element: "EntitySet", attribute: "EntityType")
            }
            container.entitySets[e].entityType = typeName
        }
        for i in container.singletons.indices {
            let singleton = container.singletons[i]
            if !names.insert(singleton.name).inserted {
                throw fault("EntityContainer \(container.name) declares \(singleton.name) twice", at: singleton.sourceLine,
                            element: "Singleton", attribute: "Name")
            }
            let typeName = qualify(singleton.type, in: namespace)
            guard entityType(named: typeName) != nil else {
                throw fault("Singleton \(singleton.name) has the Type \(typeName), which is not an entity type of the document",
                            at: singleton.sourceLine, element: "Singleton", attribute: "Type")
            }
            container.singletons[i].type = typeName
        }
    }

    /// Each function import's function qualified and found (a missing one from an undeclared
    /// namespace, or one with only bound overloads, tolerated outside strict mode), its types
    /// resolved and its entity set in the container.
    private func resolveFunctionImports(_ container: inout EntityContainer, in namespace: String,
                                        diagnostics: inout [ODataError]) throws(ODataError) {
        let setNames = Set(container.entitySets.map(\.name))
        for i in container.functionImports.indices {
            var functionImport = container.functionImports[i]
            let what = "FunctionImport \(functionImport.name)"
            if let function = functionImport.function {
                let name = qualify(function, in: namespace)
                let functions = overloads(of: name).filter { $0.kind == .function }
                if functions.isEmpty && !ownNamespaces.contains(self.namespace(of: name)) {
                    // The OASIS example miscellaneous2.xml imports from a namespace it neither declares nor includes.
                    let defect = fault("\(what) imports \(name), from a namespace the document neither declares nor includes",
                                       at: functionImport.sourceLine, element: "FunctionImport", attribute: "Function")
                    if options.isStrict { throw defect }
                    diagnostics.append(defect)
                    functionImport.function = name
                    container.functionImports[i] = functionImport
                    continue
                }
                guard !functions.isEmpty else {
                    throw fault("\(what) imports \(name), which is not a function of the document",
                                at: functionImport.sourceLine, element: "FunctionImport", attribute: "Function")
                }
                if !functions.contains(where: { !$0.isBound }) {
                    // Olingo's annotations test document imports bound functions.
                    let defect = fault("\(what) imports \(name), which has only bound overloads",
                                       at: functionImport.sourceLine, element: "FunctionImport", attribute: "Function")
                    if options.isStrict { throw defect }
                    diagnostics.append(defect)
                }
                functionImport.function = name
            }
            if var returnType = functionImport.returnType {
                try resolve(&returnType, in: namespace, what: what, at: functionImport.sourceLine, element: "FunctionImport",
                            attribute: "ReturnType")
                functionImport.returnType = returnType
            }
            for p in functionImport.parameters.indices {
                let parameter = functionImport.parameters[p]
                try resolve(&functionImport.parameters[p].type, in: namespace, what: "Parameter \(parameter.name) of \(what)",
                            at: parameter.sourceLine, element: "Parameter")
            }
            if let set = functionImport.entitySet, !set.contains("/"), !setNames.contains(set) {
                throw fault("\(what) has the EntitySet \(set), which is not in container \(container.name)",
                            at: functionImport.sourceLine, element: "FunctionImport", attribute: "EntitySet")
            }
            container.functionImports[i] = functionImport
        }
    }

    /// Each action import's action qualified and found, and its entity set in the container; an
    /// import of an action the document lacks is dropped (outside strict mode).
    private func resolveActionImports(_ container: inout EntityContainer, in namespace: String,
                                      diagnostics: inout [ODataError]) throws(ODataError) {
        let setNames = Set(container.entitySets.map(\.name))
        var keptActionImports: [ActionImport] = []
        for var actionImport in container.actionImports {
            let name = qualify(actionImport.action, in: namespace)
            let actions = overloads(of: name).filter { $0.kind == .action }
            guard !actions.isEmpty else {
                // The SAP Cloud SDK's V4 test service has an import of an action it never declares.
                let defect = fault("ActionImport \(actionImport.name) imports \(name), which is not an action of the document; the import is dropped",
                                   at: actionImport.sourceLine, element: "ActionImport", attribute: "Action")
                if options.isStrict { throw defect }
                diagnostics.append(defect)
                continue
            }
            if !actions.contains(where: { !$0.isBound }) {
                // The OASIS example miscellaneous.xml imports a bound action.
                let defect = fault("ActionImport \(actionImport.name) imports \(name), which has only bound overloads",
                                   at: actionImport.sourceLine, element: "ActionImport", attribute: "Action")
                if options.isStrict { throw defect }
                diagnostics.append(defect)
            }
            actionImport.action = name
            if let set = actionImport.entitySet, !set.contains("/"), !setNames.contains(set) {
                throw fault("ActionImport \(actionImport.name) has the EntitySet \(set), which is not in container \(container.name)",
                            at: actionImport.sourceLine, element: "ActionImport", attribute: "EntitySet")
            }
            keptActionImports.append(actionImport)
        }
        container.actionImports = keptActionImports
    }

    /// Every binding's path ends in a navigation property and its target is an entity set or singleton.
    /// A binding that does not resolve is dropped as a tolerated defect (Dynamics CRM binds to an
    /// entity set `owners` it does not declare; the OASIS examples bind paths their types lack),
    /// so every binding left in the model resolves; strict mode rejects the document instead.
    mutating func checkBindings() throws(ODataError) {
        containerMembers = [:]
        for schema in schemas {
            for container in schema.entityContainers {
                containerMembers[container.qualifiedName] = Set(container.entitySets.map(\.name) + container.singletons.map(\.name))
            }
        }
        for s in schemas.indices {
            for c in schemas[s].entityContainers.indices {
                let container = schemas[s].entityContainers[c]
                let containerName = container.qualifiedName
                // Looked up once per container, not once per binding.
                let ownTargets = containerMembers[containerName] ?? []
                for e in container.entitySets.indices {
                    let set = container.entitySets[e]
                    var kept: [NavigationPropertyBinding] = []
                    for binding in set.navigationPropertyBindings {
                        if try checkBinding(binding, from: set.entityType, of: "EntitySet \(set.name)", container: container,
                                            containerName: containerName, ownTargets: ownTargets) {
                            kept.append(binding)
                        }
                    }
                    schemas[s].entityContainers[c].entitySets[e].navigationPropertyBindings = kept
                }
                for i in container.singletons.indices {
                    let singleton = container.singletons[i]
                    var kept: [NavigationPropertyBinding] = []
                    for binding in singleton.navigationPropertyBindings {
                        if try checkBinding(binding, from: singleton.type, of: "Singleton \(singleton.name)", container: container,
                                            containerName: containerName, ownTargets: ownTargets) {
                            kept.append(binding)
                        }
                    }
                    schemas[s].entityContainers[c].singletons[i].navigationPropertyBindings = kept
                }
            }
        }
    }

    /// Whether to keep the binding: false for a tolerated missing target; throws for a broken path.
    private mutating func checkBinding(_ binding: NavigationPropertyBinding, from typeName: String, of owner: @autoclosure () -> String,
                                       container: EntityContainer, containerName: String,
                                       ownTargets: Set<String>) throws(ODataError) -> Bool {
        let namespace = container.namespace
        var current = typeName
        var endsInNavigation = false
        // A single segment (most bindings) is used as is, without a copy of it.
        let isSingleSegment = !QualifiedNames.contains(binding.path, UInt8(ascii: "/"))
        for part in PathSegments(binding.path) {
            let segment = isSingleSegment ? binding.path : String(part)
            endsInNavigation = false
            if QualifiedNames.contains(segment, UInt8(ascii: ".")) {
                let cast = qualify(segment, in: namespace)
                guard isStructuredType(cast) else {
                    try tolerate(fault("NavigationPropertyBinding of \(owner()) has the Path \(binding.path), whose type cast \(cast) is not a type of the document; the binding is dropped",
                                       at: binding.sourceLine, element: "NavigationPropertyBinding", attribute: "Path"))
                    return false
                }
                current = cast
                continue
            }
            switch member(segment, ofType: current) {
            case let found? where found.isNavigation:
                current = found.typeName
                endsInNavigation = true
            case let found?:
                current = found.typeName
            case nil:
                // The OASIS examples bind paths their types do not have.
                try tolerate(fault("NavigationPropertyBinding of \(owner()) has the Path \(binding.path), but \(current) has no property \(segment); the binding is dropped",
                                   at: binding.sourceLine, element: "NavigationPropertyBinding", attribute: "Path"))
                return false
            }
        }
        guard endsInNavigation else {
            // Olingo's annotations test document binds a path that is no navigation property.
            try tolerate(fault("NavigationPropertyBinding of \(owner()) has the Path \(binding.path), which does not end in a navigation property; the binding is dropped",
                               at: binding.sourceLine, element: "NavigationPropertyBinding", attribute: "Path"))
            return false
        }
        guard resolvesBindingTarget(binding.target, container: container, containerName: containerName, ownTargets: ownTargets) else {
            try tolerate(fault("NavigationPropertyBinding \(binding.path) of \(owner()) has the Target \(binding.target), which is not an entity set or singleton; the binding is dropped",
                               at: binding.sourceLine, element: "NavigationPropertyBinding", attribute: "Target"))
            return false
        }
        return true
    }

    /// `Name` (same container or one it extends), or `Namespace.Container/Name[/more]`.
    /// `ownTargets`: the entity sets and singletons of `container` itself.
    private func resolvesBindingTarget(_ target: String, container: EntityContainer, containerName: String,
                                       ownTargets: Set<String>) -> Bool {
        // The common case (a set of the binding's own container) without building a name or a set.
        if !QualifiedNames.contains(target, UInt8(ascii: "/")), ownTargets.contains(target) { return true }
        var searched = container
        var name = target
        if let slash = target.firstIndex(of: "/"), target[..<slash].contains(".") {
            let containerName = qualify(String(target[..<slash]), in: container.namespace)
            if externalNamespaces.contains(namespace(of: containerName)) { return true }
            guard case .entityContainer(let schema, let index) = declarations[containerName] else { return false }
            searched = schemas[schema].entityContainers[index]
            name = String(target[target.index(after: slash)...])
        }
        if let slash = name.utf8.firstIndex(of: UInt8(ascii: "/")) { name = String(name[..<slash]) }
        var seen: Set<String> = []
        while seen.insert(searched.qualifiedName).inserted {
            if containerMembers[searched.qualifiedName]?.contains(name) == true { return true }
            guard let extends = searched.extends else { return false }
            let extended = qualify(extends, in: searched.namespace)
            // Names from a container of a referenced document cannot be checked without fetching it.
            if externalNamespaces.contains(namespace(of: extended)) { return true }
            guard case .entityContainer(let schema, let index) = declarations[extended] else { return false }
            searched = schemas[schema].entityContainers[index]
        }
        return false
    }
}
